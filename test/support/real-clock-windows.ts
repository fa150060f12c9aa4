/**
 * Instances started from the CLI count their rate limits in windows of the real clock. A test
 * whose requests must all fall into one window starts in the next when less than `needMs` is
 * left of the current one; it then needs a timeout with room for that wait.
 */

/** Waits for the next window when less than `needMs` is left of the current one. */
export async function roomInWindow(windowMs: number, needMs: number): Promise<void> {
  const left = windowMs - (Date.now() % windowMs)
  if (left < needMs) await new Promise((resolve) => setTimeout(resolve, left + 50))
}

/** The options of a test that waits with roomInWindow: the suite's 30 s after the wait. */
export function withRoom(needMs: number): { timeout: number } {
  return { timeout: needMs + 30_000 }
}
