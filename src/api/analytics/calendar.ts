/**
 * Calendar arithmetic for analytics: local dates (`YYYY-MM-DD`) in an IANA time zone, the
 * instants where they start, and the periods (day, ISO week, month) a report is cut into.
 * Pure: no database, no clock.
 */

export const DAY_MS = 86_400_000

export type Interval = 'day' | 'week' | 'month'
export const INTERVALS: readonly Interval[] = ['day', 'week', 'month']

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/

/** Day number (days since 1970-01-01) of a valid `YYYY-MM-DD`, or undefined. */
export function parseDate(text: string): number | undefined {
  const match = DATE.exec(text)
  if (!match) return undefined
  const [y, m, d] = [Number(match[1]), Number(match[2]), Number(match[3])]
  const ms = Date.UTC(y, m - 1, d)
  const back = new Date(ms)
  // Date.UTC rolls 2025-02-30 over to March: a round trip catches impossible dates.
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== m - 1 || back.getUTCDate() !== d)
    return undefined
  return ms / DAY_MS
}

/** `YYYY-MM-DD` of a day number. */
export function formatDay(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10)
}

const formatters = new Map<string, Intl.DateTimeFormat>()

function formatterOf(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone)
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
    formatters.set(timeZone, formatter)
  }
  return formatter
}

const IANA_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/

/**
 * The runtime's name for an IANA time zone (`utc` → `UTC`, `europe/berlin` → `Europe/Berlin`),
 * or undefined when `name` is not one (offsets such as `+01:00` are refused too).
 */
export function canonicalTimeZone(name: string): string | undefined {
  if (name.length > 64 || !IANA_NAME.test(name)) return undefined
  try {
    return formatterOf(name).resolvedOptions().timeZone
  } catch {
    return undefined
  }
}

/** Local wall-clock fields of an instant in a zone. */
function wallClock(ms: number, timeZone: string) {
  const fields: Record<string, number> = {}
  for (const part of formatterOf(timeZone).formatToParts(new Date(ms)))
    if (part.type !== 'literal') fields[part.type] = Number(part.value)
  const { year = 1970, month = 1, day = 1, hour = 0, minute = 0, second = 0 } = fields
  return { year, month, day, hour, minute, second }
}

/** The local day number (see parseDate) an instant falls on in `timeZone`. */
export function localDay(ms: number, timeZone: string): number {
  const { year, month, day } = wallClock(ms, timeZone)
  return Date.UTC(year, month - 1, day) / DAY_MS
}

/** UTC offset of the zone at an instant, in ms (local − UTC), to the second. */
function offsetAt(ms: number, timeZone: string): number {
  const w = wallClock(ms, timeZone)
  const local = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second)
  return local - Math.floor(ms / 1000) * 1000
}

/**
 * The first instant of local day `day` in `timeZone`: local midnight, or — where a DST change
 * skips midnight — the first instant that is on that day.
 */
export function startOfDay(day: number, timeZone: string): number {
  const guess = day * DAY_MS
  const first = guess - offsetAt(guess, timeZone)
  const second = guess - offsetAt(first, timeZone)
  const candidates = [first, second].filter((t) => localDay(t, timeZone) === day)
  if (candidates.length > 0) return Math.min(...candidates)
  // Midnight does not exist: the day starts when the clocks jump, the later candidate.
  return Math.max(first, second)
}

/** First day of the period (ISO week from Monday, calendar month) that contains `day`. */
export function periodStart(day: number, interval: Interval): number {
  if (interval === 'day') return day
  const date = new Date(day * DAY_MS)
  if (interval === 'week') return day - ((date.getUTCDay() + 6) % 7)
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1) / DAY_MS
}

/** First day of the period after the one starting on `start`. */
export function nextPeriod(start: number, interval: Interval): number {
  if (interval === 'day') return start + 1
  if (interval === 'week') return start + 7
  const date = new Date(start * DAY_MS)
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1) / DAY_MS
}

/** Start days of every period touching [from, to] (both inclusive local days), in order. */
export function periodsOf(from: number, to: number, interval: Interval): number[] {
  const starts: number[] = []
  for (let start = periodStart(from, interval); start <= to; start = nextPeriod(start, interval))
    starts.push(start)
  return starts
}

/** A reporting window: local days `from`..`to` (inclusive) in a zone, and its instants. */
export interface Window {
  readonly from: number
  readonly to: number
  readonly timeZone: string
  /** First instant of `from` (inclusive). */
  readonly start: number
  /** First instant of the day after `to` (exclusive). */
  readonly end: number
}

export function windowOf(from: number, to: number, timeZone: string): Window {
  return {
    from,
    to,
    timeZone,
    start: startOfDay(from, timeZone),
    end: startOfDay(to + 1, timeZone),
  }
}

/** Whether an instant falls inside the window (by its local day, so DST edges are exact). */
export function inWindow(ms: number, window: Window): boolean {
  if (ms < window.start - DAY_MS || ms >= window.end + DAY_MS) return false
  const day = localDay(ms, window.timeZone)
  return day >= window.from && day <= window.to
}

/** The window of the same length that ends the day before `window` starts. */
export function previousWindow(window: Window): Window {
  const days = window.to - window.from + 1
  return windowOf(window.from - days, window.from - 1, window.timeZone)
}
