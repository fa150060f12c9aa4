/** Exit codes of `portico-cli`. */
export const EXIT = {
  ok: 0,
  failed: 1,
  usage: 2,
  /** Not logged in, or the sign-in ended: `portico-cli login` is the way out. */
  loginNeeded: 3,
} as const

/** A failure explained to the person, with the exit code it ends the command with. */
export class CliError extends Error {
  override name = 'CliError'
  readonly exitCode: number

  constructor(message: string, exitCode: number = EXIT.failed) {
    super(message)
    this.exitCode = exitCode
  }
}

/** How long one request to the server may take. */
const REQUEST_TIMEOUT_MS = 15_000

/**
 * fetch() with a time limit, turning network failures into a sentence a person can act on:
 * the server is not running, the name does not resolve, it does not answer.
 */
export async function send(url: string, init: RequestInit = {}): Promise<Response> {
  try {
    return await fetch(url, {
      ...init,
      redirect: 'manual',
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    })
  } catch (error) {
    throw new CliError(unreachable(new URL(url).origin, error))
  }
}

function unreachable(origin: string, error: unknown): string {
  if (error instanceof Error && error.name === 'TimeoutError') {
    return `${origin} did not answer within ${REQUEST_TIMEOUT_MS / 1000} seconds. Is the server overloaded, or is the address right?`
  }
  const cause = error instanceof Error ? (error.cause as { code?: string } | undefined) : undefined
  const reasons: Record<string, string> = {
    ECONNREFUSED: 'connection refused',
    ENOTFOUND: 'no such host',
    EAI_AGAIN: 'the name could not be resolved',
    ECONNRESET: 'the connection was reset',
    EHOSTUNREACH: 'the host is unreachable',
  }
  const reason = (cause?.code && reasons[cause.code]) ?? cause?.code ?? 'the request failed'
  return `cannot reach ${origin}: ${reason}. Is Portico running there, and is the address right?`
}

/** A JSON object from a response, or undefined when the body is not one. */
export async function jsonBody(response: Response): Promise<Record<string, unknown> | undefined> {
  const text = await response.text()
  try {
    const value: unknown = JSON.parse(text)
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined
  } catch {
    return undefined
  }
}

/** `description (error)` from an RFC 6749 §5.2 error body, or the HTTP status. */
export function oauthErrorText(response: Response, body: Record<string, unknown> | undefined) {
  const error = typeof body?.error === 'string' ? body.error : undefined
  const description =
    typeof body?.error_description === 'string' ? body.error_description : undefined
  if (error && description) return `${description} (${error})`
  return error ?? `HTTP ${response.status} ${response.statusText}`.trim()
}

/** POSTs an application/x-www-form-urlencoded body. */
export function postForm(url: string, fields: Record<string, string>): Promise<Response> {
  return send(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    },
    body: new URLSearchParams(fields).toString(),
  })
}

/** Loopback hosts, where plain http stays on this machine (RFC 8252 §8.3). */
export function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(hostname)
}
