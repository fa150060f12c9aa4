import { describe, expect, it } from 'vitest'
import type { FieldError } from '../conventions.js'
import type { Field } from '../framework/fields.js'
import { ProblemError } from '../problem.js'
import { formatDay, parseDate } from './calendar.js'
import { compare, interval, limit, productType, RANGE, sort } from './parameters.js'
import { reportQuery } from './report-query.js'

// 2026-03-10T03:00Z: still March 9 in New York.
const NOW = Date.parse('2026-03-10T03:00:00Z')
const day = (text: string) => parseDate(text) as number
const parse = (values: Record<string, unknown>) => reportQuery(values, 'America/New_York', NOW)
const days = (q: ReturnType<typeof parse>) => [formatDay(q.window.from), formatDay(q.window.to)]
const refused = (values: Record<string, unknown>) => {
  try {
    parse(values)
  } catch (error) {
    expect(error).toBeInstanceOf(ProblemError)
    const problem = error as ProblemError
    expect([problem.status, problem.fields.code]).toEqual([400, 'invalid_request'])
    return problem.fields.errors?.map((e) => [e.field, e.code])
  }
  throw new Error('no problem')
}
/** A parameter's value from its text, or its error code. */
const read = (member: Field, text: string) => {
  const errors: FieldError[] = []
  const value = member.parse(text, 'p', errors)
  expect(member.parseQuery(text)).toEqual(value)
  return errors.length > 0 ? errors.map((e) => e.code) : value
}

describe('analytics query', () => {
  it('defaults to the last 30 days, today included, in the school zone', () => {
    expect(days(parse({}))).toEqual(['2026-02-08', '2026-03-09'])
    expect(days(parse({ timezone: 'UTC' }))).toEqual(['2026-02-09', '2026-03-10'])
    expect(days(parse({ to: day('2026-01-31') }))).toEqual(['2026-01-02', '2026-01-31'])
    expect(days(parse({ from: day('2026-03-01') }))).toEqual(['2026-03-01', '2026-03-09'])
    expect(reportQuery({}, 'Nowhere/Else', NOW).window.timeZone).toBe('UTC')
  })

  it('reads the report options with their defaults', () => {
    expect(parse({})).toMatchObject({
      interval: 'day',
      compare: false,
      limit: 20,
      sort: 'net_revenue',
      descending: true,
    })
    expect(parse({ sort: 'units' })).toMatchObject({ sort: 'units', descending: false })
    expect(parse({ compare: 'previous_period', group_by: 'product_type' })).toMatchObject({
      compare: true,
      byProductType: true,
    })
  })

  it('refuses a range backwards or too long (366 days by the day, 3660 otherwise)', () => {
    expect(refused({ from: day('2026-03-10'), to: day('2026-03-09') })).toEqual([
      ['from', 'invalid_range'],
    ])
    const year = { from: day('2025-01-01'), to: day('2026-01-02') }
    expect(refused({ ...year, interval: 'day' })).toEqual([['to', 'range_too_long']])
    expect(days(parse({ ...year, interval: 'week' }))).toEqual(['2025-01-01', '2026-01-02'])
    expect(days(parse(year))).toEqual(['2025-01-01', '2026-01-02'])
    expect(refused({ from: day('2000-01-01'), to: day('2020-01-01') })).toEqual([
      ['to', 'range_too_long'],
    ])
  })
})

describe('analytics parameters', () => {
  it('read their text, naming what is wrong', () => {
    expect(read(RANGE.from as Field, '2026-03-01')).toBe(day('2026-03-01'))
    expect(read(RANGE.from as Field, '2026-02-30')).toEqual(['invalid_date'])
    expect(read(RANGE.timezone as Field, 'utc')).toBe('UTC')
    expect(read(RANGE.timezone as Field, 'Nowhere/Else')).toEqual(['invalid_timezone'])
    expect(read(interval, 'year')).toEqual(['invalid_value'])
    expect(read(compare, 'yes')).toEqual(['invalid_value'])
    expect(read(productType, 'event')).toBe('event_ticket')
    expect(read(limit, '0')).toEqual(['range'])
    expect(read(limit, '200')).toBe(200)
    expect(read(sort, '-units')).toBe('-units')
    expect(read(sort, '-price')).toEqual(['unknown_sort'])
  })
})
