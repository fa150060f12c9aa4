import { describe, expect, it } from 'vitest'
import {
  canonicalTimeZone,
  formatDay,
  inWindow,
  localDay,
  parseDate,
  periodStart,
  periodsOf,
  previousWindow,
  startOfDay,
  windowOf,
} from './calendar.js'

const day = (text: string) => parseDate(text) as number
const at = (iso: string) => Date.parse(iso)

describe('analytics calendar', () => {
  it('parses real dates only', () => {
    expect(formatDay(day('2026-03-01'))).toBe('2026-03-01')
    expect(parseDate('2026-02-29')).toBeUndefined()
    expect(parseDate('2024-02-29')).toBeDefined()
    expect(parseDate('2026-13-01')).toBeUndefined()
    expect(parseDate('2026-1-01')).toBeUndefined()
    expect(parseDate('0050-01-01')).toBeUndefined()
    expect(parseDate('yesterday')).toBeUndefined()
  })

  it('knows IANA zones and refuses the rest', () => {
    expect(canonicalTimeZone('UTC')).toBe('UTC')
    expect(canonicalTimeZone('america/new_york')).toBe('America/New_York')
    expect(canonicalTimeZone('Mars/Olympus')).toBeUndefined()
    expect(canonicalTimeZone('+01:00')).toBeUndefined()
    expect(canonicalTimeZone('')).toBeUndefined()
  })

  it('finds local midnight, across daylight saving changes', () => {
    expect(startOfDay(day('2026-01-15'), 'America/New_York')).toBe(at('2026-01-15T05:00:00Z'))
    expect(startOfDay(day('2026-07-15'), 'America/New_York')).toBe(at('2026-07-15T04:00:00Z'))
    // 2026-03-08: clocks go forward at 02:00; the day before starts at -05:00, the next at -04:00.
    expect(startOfDay(day('2026-03-08'), 'America/New_York')).toBe(at('2026-03-08T05:00:00Z'))
    expect(startOfDay(day('2026-03-09'), 'America/New_York')).toBe(at('2026-03-09T04:00:00Z'))
    expect(startOfDay(day('2026-06-01'), 'Asia/Kolkata')).toBe(at('2026-05-31T18:30:00Z'))
    // Santiago skips midnight when it springs forward (2026-09-06 00:00 → 01:00).
    const skipped = startOfDay(day('2026-09-06'), 'America/Santiago')
    expect(localDay(skipped, 'America/Santiago')).toBe(day('2026-09-06'))
    expect(localDay(skipped - 1, 'America/Santiago')).toBe(day('2026-09-05'))
  })

  it('reads the local day of an instant', () => {
    expect(formatDay(localDay(at('2026-03-02T04:59:59Z'), 'America/New_York'))).toBe('2026-03-01')
    expect(formatDay(localDay(at('2026-03-02T05:00:00Z'), 'America/New_York'))).toBe('2026-03-02')
  })

  it('cuts ranges into days, ISO weeks and months', () => {
    expect(formatDay(periodStart(day('2026-11-22'), 'week'))).toBe('2026-11-16') // a Sunday
    expect(formatDay(periodStart(day('2026-11-16'), 'week'))).toBe('2026-11-16') // a Monday
    expect(formatDay(periodStart(day('2026-11-22'), 'month'))).toBe('2026-11-01')
    expect(periodsOf(day('2026-01-30'), day('2026-03-01'), 'month').map(formatDay)).toEqual([
      '2026-01-01',
      '2026-02-01',
      '2026-03-01',
    ])
    expect(periodsOf(day('2026-12-30'), day('2027-01-02'), 'day').map(formatDay)).toEqual([
      '2026-12-30',
      '2026-12-31',
      '2027-01-01',
      '2027-01-02',
    ])
    expect(periodsOf(day('2026-11-18'), day('2026-11-30'), 'week').map(formatDay)).toEqual([
      '2026-11-16',
      '2026-11-23',
      '2026-11-30',
    ])
  })

  it('has inclusive windows and a previous window of the same length', () => {
    const window = windowOf(day('2026-03-01'), day('2026-03-31'), 'America/New_York')
    expect(window.start).toBe(at('2026-03-01T05:00:00Z'))
    expect(window.end).toBe(at('2026-04-01T04:00:00Z'))
    expect(inWindow(at('2026-04-01T03:59:59Z'), window)).toBe(true)
    expect(inWindow(at('2026-04-01T04:00:00Z'), window)).toBe(false)
    expect(inWindow(at('2026-03-01T04:59:59Z'), window)).toBe(false)
    const previous = previousWindow(window)
    expect([formatDay(previous.from), formatDay(previous.to)]).toEqual(['2026-01-29', '2026-02-28'])
  })
})
