/**
 * The question a report answers: a date range in a time zone, and per report its interval,
 * comparison, filters and sort. Each parameter is checked by its member (query-members.ts);
 * the range as a whole here. Every refusal is a 400 `invalid_request` naming the parameter.
 */

import type { FieldError } from '../conventions.js'
import { throwIfAny } from '../framework/endpoint-query.js'
import {
  canonicalTimeZone,
  formatDay,
  type Interval,
  localDay,
  type Window,
  windowOf,
} from './calendar.js'
import type { ProductSort } from './figures.js'
import { DEFAULT_PRODUCTS } from './parameters.js'

/** Days in the default range: the last 30 days, today included. */
export const DEFAULT_DAYS = 30
/** Longest range a daily series (and every report) may span, in days. */
export const MAX_DAILY_DAYS = 366
export const MAX_DAYS = 3660

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

/**
 * The report's question from its checked parameters (`values`, as the query members parse
 * them). The range is `from`..`to`, both inclusive local dates in `timezone` (default
 * `schoolTimeZone`); without them, the last 30 days ending today. A report with an interval
 * (`values.interval` present) spans at most 366 days by the day.
 */
export function reportQuery(
  values: Readonly<Record<string, unknown>>,
  schoolTimeZone: string,
  now: number,
): ReportQuery {
  const errors: FieldError[] = []
  // A school zone the runtime does not know (set outside the API) falls back to UTC.
  const timeZone =
    (values.timezone as string | undefined) ?? canonicalTimeZone(schoolTimeZone) ?? 'UTC'
  const interval = (values.interval as Interval | undefined) ?? 'day'
  const to = (values.to as number | undefined) ?? localDay(now, timeZone)
  const from = (values.from as number | undefined) ?? to - (DEFAULT_DAYS - 1)
  if (from > to)
    errors.push({
      field: 'from',
      code: 'invalid_range',
      message: `from (${formatDay(from)}) must not be after to (${formatDay(to)})`,
    })
  else {
    const max = values.interval === 'day' ? MAX_DAILY_DAYS : MAX_DAYS
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
  throwIfAny(errors, 'query', 400)
  const sort = (values.sort as string | undefined) ?? '-net_revenue'
  return {
    window: windowOf(from, to, timeZone),
    interval,
    compare: values.compare === 'previous_period',
    byProductType: values.group_by === 'product_type',
    productType: values.product_type as string | undefined,
    limit: (values.limit as number | undefined) ?? DEFAULT_PRODUCTS,
    sort: sort.replace(/^-/, '') as ProductSort,
    descending: sort.startsWith('-'),
  }
}
