import { describe, expect, it } from 'vitest'
import { ProblemError } from '../problem.js'
import { formatDay } from './calendar.js'
import { parseReportQuery } from './params.js'

// 2026-03-10T03:00Z: still March 9 in New York.
const NOW = Date.parse('2026-03-10T03:00:00Z')
const parse = (
  query: Record<string, unknown>,
  accepted: Parameters<typeof parseReportQuery>[1] = [],
) => parseReportQuery(query, accepted, 'America/New_York', NOW)
const days = (q: ReturnType<typeof parse>) => [formatDay(q.window.from), formatDay(q.window.to)]
const fieldsOf = (query: Record<string, unknown>, accepted: Parameters<typeof parse>[1] = []) => {
  try {
    parse(query, accepted)
  } catch (error) {
    expect(error).toBeInstanceOf(ProblemError)
    const problem = error as ProblemError
    expect([problem.status, problem.fields.code]).toEqual([400, 'invalid_request'])
    return problem.fields.errors?.map((e) => e.field)
  }
  throw new Error('no problem')
}

describe('analytics query', () => {
  it('defaults to the last 30 days, today included, in the school zone', () => {
    expect(days(parse({}))).toEqual(['2026-02-08', '2026-03-09'])
    expect(days(parse({ timezone: 'utc' }))).toEqual(['2026-02-09', '2026-03-10'])
    expect(parse({ timezone: 'utc' }).window.timeZone).toBe('UTC')
    expect(days(parse({ to: '2026-01-31' }))).toEqual(['2026-01-02', '2026-01-31'])
    expect(days(parse({ from: '2026-03-01' }))).toEqual(['2026-03-01', '2026-03-09'])
  })

  it('reads the report options with their defaults', () => {
    const q = parse({}, ['interval', 'compare', 'product_type', 'limit', 'sort'])
    expect(q).toMatchObject({
      interval: 'day',
      compare: false,
      limit: 20,
      sort: 'net_revenue',
      descending: true,
    })
    expect(parse({ product_type: 'event' }, ['product_type']).productType).toBe('event_ticket')
    expect(parse({ sort: 'units' }, ['sort'])).toMatchObject({ sort: 'units', descending: false })
  })

  it('names every bad parameter', () => {
    expect(fieldsOf({ from: '2026-03-10', to: '2026-03-09' })).toEqual(['from'])
    expect(fieldsOf({ from: 'x', timezone: 'Nowhere/Else', compare: 'yes' }, ['compare'])).toEqual([
      'timezone',
      'from',
      'compare',
    ])
    expect(fieldsOf({ from: '2025-01-01', to: '2026-01-02' }, ['interval'])).toEqual(['to'])
    expect(days(parse({ from: '2025-01-01', to: '2025-12-31' }, ['interval']))).toEqual([
      '2025-01-01',
      '2025-12-31',
    ])
    expect(fieldsOf({ limit: '0', interval: 'week' }, ['limit'])).toEqual(['interval', 'limit'])
  })
})
