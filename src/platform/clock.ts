/** The source of time. Pure checks take `now` as a parameter; everything else asks a Clock. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number
}

export const systemClock: Clock = { now: () => Date.now() }

/** Whole seconds since the epoch of a time in milliseconds, as JWT and OAuth metadata count them. */
export function epochSeconds(ms: number): number {
  return Math.floor(ms / 1000)
}
