/**
 * The parameters of the analytics reports, declared once: each member checks its own
 * value (naming the parameter, its error code and message) and documents itself in OpenAPI.
 * The range as a whole (`from` before `to`, its length) is checked by `reportQuery`.
 */

import { PRODUCT_TYPES } from '../commerce/orders.resource.js'
import type { FieldError } from '../conventions.js'
import { type QueryMember, queryMember, queryText } from '../framework/endpoint-query.js'
import { type Field, type FieldOptions, fail, field } from '../framework/fields.js'
import { type Shown, shown } from '../framework/views.js'
import { canonicalTimeZone, INTERVALS, parseDate } from './calendar.js'
import { PRODUCT_SORTS } from './figures.js'

export const MAX_PRODUCTS = 200
export const DEFAULT_PRODUCTS = 20

/**
 * A parameter read from its text (a number or boolean from a JSON binding is read as text):
 * `read` gives its value, or undefined for a text refused with `code` and `message`; `like`
 * describes its values (its schema). Never required; a default is filled in by the builder
 * and documented in the schema.
 */
function parameter(
  like: Shown<unknown>,
  options: FieldOptions,
  read: (text: string) => unknown,
  code: string,
  message: string,
): QueryMember {
  const parse = (value: unknown, path: string, errors: FieldError[]) => {
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean')
      return fail(errors, path, 'type', `${path} must be a string`)
    return read(String(value)) ?? fail(errors, path, code, message)
  }
  const fallback = options.default !== undefined ? { default: options.default } : {}
  const member = field(
    { ...options, required: false },
    { schema: { ...like.schema, ...fallback }, parse, parseQuery: (raw) => read(raw) },
  )
  return queryMember(member, code, message)
}

/** One of `values` (`aliases` name some of them otherwise). */
function choice(
  values: readonly string[],
  message: string,
  options: FieldOptions,
  aliases: Readonly<Record<string, string>> = {},
): QueryMember {
  return parameter(
    shown.string({ enum: [...values, ...Object.keys(aliases)] }),
    options,
    (text) => {
      const value = aliases[text] ?? text
      return values.includes(value) ? value : undefined
    },
    'invalid_value',
    message,
  )
}

/** A local date YYYY-MM-DD, as a day number. */
const localDate = (name: string, description: string) =>
  parameter(
    shown.string({ format: 'date' }),
    { description },
    parseDate,
    'invalid_date',
    `${name} must be a date YYYY-MM-DD`,
  )

/** The range every report takes: `from`..`to` in `timezone`. */
export const RANGE: Readonly<Record<string, QueryMember>> = {
  from: localDate(
    'from',
    'First day of the range (inclusive), a local date in `timezone`. Default: 29 days before `to`, so the default range is the last 30 days.',
  ),
  to: localDate(
    'to',
    'Last day of the range (inclusive), a local date in `timezone`. Default: today in `timezone`. `from` after `to` is a 400. A range spans at most 3660 days, and a daily series at most 366.',
  ),
  timezone: parameter(
    shown.string(),
    {
      description:
        'IANA time zone the dates and periods are read in (e.g. `Europe/Berlin`, `UTC`). Default: the school timezone (UTC when it has none).',
    },
    canonicalTimeZone,
    'invalid_timezone',
    'timezone must be an IANA time zone such as Europe/Berlin or UTC',
  ),
}

export const interval = choice(INTERVALS, `interval must be one of ${INTERVALS.join(', ')}`, {
  default: 'day',
  description:
    'Length of each period: `day`, `week` (ISO weeks from Monday) or `month` (calendar months). Default `day`. The first and last periods may cover only part of the range; `period_start` is the first day of the calendar period.',
})

export const compare = choice(['previous_period'], 'compare must be previous_period', {
  description: '`previous_period` adds the same figures for the preceding range of equal length.',
})

export const groupBy = choice(['product_type'], 'group_by must be product_type', {
  description: '`product_type` adds `by_product_type` to each period.',
})

/** A product type of order lines; `event` is accepted as another name of `event_ticket`. */
export const productType = choice(
  PRODUCT_TYPES,
  `product_type must be one of ${PRODUCT_TYPES.join(', ')} (or event)`,
  { description: 'Only this type of product (`event` is accepted for `event_ticket`).' },
  { event: 'event_ticket' },
)

export const limit = parameter(
  shown.integer({ minimum: 1, maximum: MAX_PRODUCTS }),
  { default: DEFAULT_PRODUCTS, description: 'How many products (1–200, default 20).' },
  (text) => {
    const n = /^\d{1,3}$/.test(text) ? Number(text) : Number.NaN
    return n >= 1 && n <= MAX_PRODUCTS ? n : undefined
  },
  'range',
  `limit must be 1 to ${MAX_PRODUCTS}`,
)

export const sort = parameter(
  shown.string(),
  {
    default: '-net_revenue',
    description:
      'net_revenue, gross_revenue, refunds, units or name; `-` for descending. Money keys compare the amounts currency by currency, in the listed order.',
  },
  (text) =>
    (PRODUCT_SORTS as readonly string[]).includes(text.replace(/^-/, '')) ? text : undefined,
  'unknown_sort',
  `sort must be one of ${PRODUCT_SORTS.join(', ')}, with - for descending`,
)

/** The course a course report is about: its id or its slug (an unknown one is a 404). */
export const courseKey: Field = queryText({ description: 'Course id or slug' })
