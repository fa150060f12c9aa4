import type { When } from './catalogue/types.js'

const HOUR = 3_600_000
const DAY = 24 * HOUR

/**
 * The demo's times: offsets in days (fractions for hours and minutes) from the current whole
 * hour, so the same records are dated relative to the day they are loaded.
 */
export interface DemoTime extends When {
  /** Epoch milliseconds, so many days from the anchor. */
  at(day: number): number
}

export function demoTime(now: number): DemoTime {
  const anchor = Math.floor(now / HOUR) * HOUR
  const at = (day: number) => anchor + Math.round(day * DAY)
  const iso = (day: number) => new Date(at(day)).toISOString().replace(/\.\d{3}Z$/, 'Z')
  return { at, iso, date: (day) => iso(day).slice(0, 10) }
}
