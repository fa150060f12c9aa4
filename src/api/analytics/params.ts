/**
 * The query of the analytics reports: a date range in a time zone, and per report its
 * interval, comparison, filters and sort. Every bad value is a 400 `invalid_request` naming
 * the parameter; unknown parameters too (never silently ignored, as the list endpoints).
 */

import type { FieldError } from '../conventions.js'
import { ProblemError } from '../problem.js'
import {
  canonicalTimeZone,
  formatDay,
  INTERVALS,
  type Interval,
  localDay,
  parseDate,
  type Window,
  windowOf,
} from './calendar.js'
import { PRODUCT_SORTS, type ProductSort } from './figures.js'

/** Days in the default range: the last 30 days, today included. */
export const DEFAULT_DAYS = 30
/** Longest range a daily series (and every report) may span, in days. */
export const MAX_DAILY_DAYS = 366
export const MAX_DAYS = 3660
export const MAX_PRODUCTS = 200
export const DEFAULT_PRODUCTS = 20

/** Product types of order lines; `event` is accepted as another name of `event_ticket`. */
export const PRODUCT_TYPES = [
  'course',
  'membership_plan',
  'digital_product',
  'event_ticket',
] as const

export interface ReportQuery {
  readonly window: Window
  readonly interval: Interval
  readonly compare: boolean
  /** group_by=product_type: each period also split by product type. */
  readonly byProductType: boolean
  readonly productType: string | undefined
  readonly limit: number
  readonly sort: ProductSort
  readonly descending: boolean
}

type Param =
  | 'from'
  | 'to'
  | 'timezone'
  | 'interval'
  | 'compare'
  | 'group_by'
  | 'product_type'
  | 'limit'
  | 'sort'

/**
 * Reads the parameters a report accepts (`accepted`) from the query. The range is `from`..`to`,
 * both inclusive local dates in `timezone` (default `schoolTimeZone`); without them, the last
 * 30 days ending today.
 */
export function parseReportQuery(
  query: Record<string, unknown>,
  accepted: readonly Param[],
  schoolTimeZone: string,
  now: number,
): ReportQuery {
  const errors: FieldError[] = []
  const values = new Map<string, string>()
  const allowed = new Set<string>(['from', 'to', 'timezone', ...accepted])
  for (const [name, raw] of Object.entries(query)) {
    if (!allowed.has(name))
      errors.push({
        field: name,
        code: 'unknown_parameter',
        message: `${name} is not a parameter of this report; parameters: ${[...allowed].join(', ')}`,
      })
    else if (typeof raw !== 'string')
      errors.push({ field: name, code: 'repeated', message: `${name} may be given only once` })
    else values.set(name, raw)
  }

  // A school zone the runtime does not know (set outside the API) falls back to UTC.
  let timeZone = canonicalTimeZone(schoolTimeZone) ?? 'UTC'
  const zone = values.get('timezone')
  if (zone !== undefined) {
    const known = canonicalTimeZone(zone)
    if (known) timeZone = known
    else
      errors.push({
        field: 'timezone',
        code: 'invalid_timezone',
        message: 'timezone must be an IANA time zone such as Europe/Berlin or UTC',
      })
  }

  let interval: Interval = 'day'
  const intervalText = values.get('interval')
  if (intervalText !== undefined) {
    if ((INTERVALS as readonly string[]).includes(intervalText)) interval = intervalText as Interval
    else
      errors.push({
        field: 'interval',
        code: 'invalid_value',
        message: `interval must be one of ${INTERVALS.join(', ')}`,
      })
  }

  const date = (name: 'from' | 'to') => {
    const text = values.get(name)
    if (text === undefined) return undefined
    const day = parseDate(text)
    if (day === undefined)
      errors.push({
        field: name,
        code: 'invalid_date',
        message: `${name} must be a date YYYY-MM-DD`,
      })
    return day ?? null
  }
  const fromDay = date('from')
  const toDay = date('to')
  const today = localDay(now, timeZone)
  let to = toDay ?? today
  let from = fromDay ?? to - (DEFAULT_DAYS - 1)
  if (fromDay !== null && toDay !== null) {
    if (from > to)
      errors.push({
        field: 'from',
        code: 'invalid_range',
        message: `from (${formatDay(from)}) must not be after to (${formatDay(to)})`,
      })
    else {
      const max = accepted.includes('interval') && interval === 'day' ? MAX_DAILY_DAYS : MAX_DAYS
      if (to - from + 1 > max)
        errors.push({
          field: 'to',
          code: 'range_too_long',
          message:
            max === MAX_DAILY_DAYS
              ? `a daily series spans at most ${max} days; shorten the range or use interval=week or month`
              : `the range spans at most ${max} days`,
        })
    }
  }
  if (from === null || to === null) [from, to] = [0, 0]

  const compareText = values.get('compare')
  if (compareText !== undefined && compareText !== 'previous_period')
    errors.push({
      field: 'compare',
      code: 'invalid_value',
      message: 'compare must be previous_period',
    })

  const groupBy = values.get('group_by')
  if (groupBy !== undefined && groupBy !== 'product_type')
    errors.push({
      field: 'group_by',
      code: 'invalid_value',
      message: 'group_by must be product_type',
    })

  let productType: string | undefined
  const typeText = values.get('product_type')
  if (typeText !== undefined) {
    const type = typeText === 'event' ? 'event_ticket' : typeText
    if ((PRODUCT_TYPES as readonly string[]).includes(type)) productType = type
    else
      errors.push({
        field: 'product_type',
        code: 'invalid_value',
        message: `product_type must be one of ${PRODUCT_TYPES.join(', ')} (or event)`,
      })
  }

  let limit = DEFAULT_PRODUCTS
  const limitText = values.get('limit')
  if (limitText !== undefined) {
    const n = /^\d{1,3}$/.test(limitText) ? Number(limitText) : Number.NaN
    if (n >= 1 && n <= MAX_PRODUCTS) limit = n
    else
      errors.push({ field: 'limit', code: 'range', message: `limit must be 1 to ${MAX_PRODUCTS}` })
  }

  let sort: ProductSort = 'net_revenue'
  let descending = true
  const sortText = values.get('sort')
  if (sortText !== undefined) {
    const key = sortText.replace(/^-/, '')
    if ((PRODUCT_SORTS as readonly string[]).includes(key)) {
      sort = key as ProductSort
      descending = sortText.startsWith('-')
    } else
      errors.push({
        field: 'sort',
        code: 'unknown_sort',
        message: `sort must be one of ${PRODUCT_SORTS.join(', ')}, with - for descending`,
      })
  }

  if (errors.length > 0)
    throw new ProblemError(400, {
      code: 'invalid_request',
      title: 'Bad Request',
      detail: errors.length === 1 ? (errors[0]?.message ?? 'invalid query') : 'invalid query',
      errors,
    })
  return {
    window: windowOf(from, to, timeZone),
    interval,
    compare: compareText === 'previous_period',
    byProductType: groupBy === 'product_type',
    productType,
    limit,
    sort,
    descending,
  }
}
