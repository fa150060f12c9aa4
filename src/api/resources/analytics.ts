import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { AppDeps } from '../../app-deps.js'
import { parseReportQuery } from '../analytics/params.js'
import {
  courseReport,
  findCourse,
  overviewReport,
  productsReport,
  revenueReport,
  schoolSettings,
  studentsReport,
} from '../analytics/reports.js'
import type { ApiArea } from '../area.js'
import { requireScope } from '../caller.js'
import { legacyCallerOf } from '../legacy-routes.js'
import {
  CURRENCY_RULE,
  DEFINITIONS,
  moneyListSchema,
  STATUS_RULE,
  TAX_RULE,
} from '../money/definitions.js'
import type { OpenApiPaths } from '../openapi-paths.js'
import { ProblemError } from '../problem.js'

/**
 * Analytics (DOMAIN.md §4.3.6): read-only reports over the school's own orders, refunds,
 * enrollments, lesson progress and subscriptions. No record is stored, so there are no
 * framework resources: hand-written routes, all behind `analytics:read` (no anonymous access).
 */
const SCOPE = 'analytics:read'
const BASE = '/api/v1/analytics'

function registerAnalyticsRoutes(api: FastifyInstance, deps: AppDeps): void {
  const db = deps.database.db
  const authorize = (request: FastifyRequest) =>
    requireScope(legacyCallerOf(request), SCOPE, deps.config.issuer)
  /** Checks the scope, then reads the school's settings and the report's query. */
  const prepare = async (
    request: FastifyRequest,
    accepted: Parameters<typeof parseReportQuery>[1],
  ) => {
    authorize(request)
    const settings = await schoolSettings(db)
    const raw = request.query as Record<string, unknown>
    const query = parseReportQuery(raw, accepted, settings.timeZone, deps.clock.now())
    return { settings, query }
  }

  api.get(`${BASE}/overview`, async (request, reply) => {
    const { settings, query } = await prepare(request, ['compare'])
    const body = await overviewReport(db, settings, query, deps.clock.now())
    return reply.header('cache-control', 'no-store').send(body)
  })

  api.get(`${BASE}/revenue`, async (request, reply) => {
    const { settings, query } = await prepare(request, ['interval', 'group_by'])
    const body = await revenueReport(db, settings, query)
    return reply.header('cache-control', 'no-store').send(body)
  })

  api.get(`${BASE}/products`, async (request, reply) => {
    const { settings, query } = await prepare(request, ['product_type', 'limit', 'sort'])
    const body = await productsReport(db, settings, query)
    return reply.header('cache-control', 'no-store').send(body)
  })

  api.get(`${BASE}/courses/:course_id`, async (request, reply) => {
    const { query } = await prepare(request, [])
    const { course_id: courseId } = request.params as { course_id: string }
    const course = await findCourse(db, courseId)
    if (!course)
      throw new ProblemError(404, {
        code: 'not_found',
        title: 'Not Found',
        detail: 'no course with this id or slug',
      })
    const body = await courseReport(db, course, query)
    return reply.header('cache-control', 'no-store').send(body)
  })

  api.get(`${BASE}/students`, async (request, reply) => {
    const { settings, query } = await prepare(request, ['interval'])
    const body = await studentsReport(db, settings, query)
    return reply.header('cache-control', 'no-store').send(body)
  })
}

// ——— OpenAPI ———

const problem = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
})
const moneyList = moneyListSchema
const currencyFields = {
  currency: {
    type: 'string',
    description: 'The school currency (listed first in every money figure)',
  },
  currencies: {
    type: 'array',
    items: { type: 'string' },
    description: `The currencies every money figure lists, in order. ${CURRENCY_RULE}`,
  },
}
const count = (description: string) => ({ type: 'integer', minimum: 0, description })
const rate = (description: string) => ({ type: 'number', minimum: 0, maximum: 1, description })
const date = (description: string) => ({ type: 'string', format: 'date', description })

const query = (name: string, description: string, schema: Record<string, unknown>) => ({
  name,
  in: 'query',
  required: false,
  description,
  schema,
})
const rangeParams = [
  query(
    'from',
    'First day of the range (inclusive), a local date in `timezone`. Default: 29 days before `to`, so the default range is the last 30 days.',
    { type: 'string', format: 'date' },
  ),
  query(
    'to',
    'Last day of the range (inclusive), a local date in `timezone`. Default: today in `timezone`. `from` after `to` is a 400. A range spans at most 3660 days, and a daily series at most 366.',
    { type: 'string', format: 'date' },
  ),
  query(
    'timezone',
    'IANA time zone the dates and periods are read in (e.g. `Europe/Berlin`, `UTC`). Default: the school timezone (UTC when it has none).',
    { type: 'string' },
  ),
]
const intervalParam = query(
  'interval',
  'Length of each period: `day`, `week` (ISO weeks from Monday) or `month` (calendar months). Default `day`. The first and last periods may cover only part of the range; `period_start` is the first day of the calendar period.',
  { type: 'string', enum: ['day', 'week', 'month'], default: 'day' },
)

const REVENUE_RULES = `Revenue (src/api/money): ${STATUS_RULE} net = gross − refunds (may be negative). Free or manual enrollments never count. ${TAX_RULE} Every money figure is a per-currency list: ${CURRENCY_RULE}`

const figuresProperties = {
  revenue: {
    type: 'object',
    required: ['gross', 'refunds', 'net'],
    properties: {
      gross: moneyList(DEFINITIONS.orderGross),
      refunds: moneyList(DEFINITIONS.orderRefunds),
      net: moneyList(DEFINITIONS.orderNet),
    },
  },
  orders_count: count('Revenue orders paid in the range.'),
  paying_customers: count(
    'Distinct customers (the student, or the lower-cased email of an order without one) with a revenue order of a positive total paid in the range.',
  ),
  average_order_value: moneyList(DEFINITIONS.averageOrderValue),
  new_students: count('Students created in the range.'),
  active_students: count('Distinct students who completed at least one lesson in the range.'),
  enrollments: count('Enrollments started (`started_at`) in the range, whatever their source.'),
  course_completions: count('Enrollments completed (`completed_at`) in the range.'),
  active_subscriptions: count(
    `At the end of the range (or now, if sooner). ${DEFINITIONS.activeSubscriptions}`,
  ),
  trialing_subscriptions: count(
    `At the end of the range (or now, if sooner). ${DEFINITIONS.trialingSubscriptions}`,
  ),
  mrr: moneyList(`At the end of the range (or now, if sooner). ${DEFINITIONS.mrr}`),
  churned_subscriptions: count('Subscriptions whose `ended_at` falls in the range.'),
}
const overviewSchema = {
  type: 'object',
  required: [
    'object',
    'from',
    'to',
    'timezone',
    'currency',
    'currencies',
    ...Object.keys(figuresProperties),
  ],
  properties: {
    object: { const: 'analytics_overview' },
    from: date('First day of the range'),
    to: date('Last day of the range (inclusive)'),
    timezone: { type: 'string' },
    ...currencyFields,
    ...figuresProperties,
    previous: {
      type: 'object',
      description:
        'With compare=previous_period: the same figures for the range of the same length ending the day before `from`.',
      properties: { from: date('First day'), to: date('Last day'), ...figuresProperties },
    },
  },
}

const listOf = (items: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: 'object',
  required: ['object', 'data', 'from', 'to', 'timezone'],
  properties: {
    object: { const: 'list' },
    from: date('First day of the range'),
    to: date('Last day of the range (inclusive)'),
    timezone: { type: 'string' },
    ...extra,
    data: { type: 'array', items },
    has_more: { type: 'boolean' },
    total_count: { type: 'integer' },
  },
})

const revenuePeriod = {
  type: 'object',
  required: ['period_start', 'gross', 'refunds', 'net', 'orders_count'],
  properties: {
    period_start: date('First day of the calendar period'),
    gross: moneyList(DEFINITIONS.orderGross.replace('the range', 'the period')),
    refunds: moneyList(DEFINITIONS.orderRefunds.replace('the range', 'the period')),
    net: moneyList(DEFINITIONS.orderNet),
    orders_count: count('Revenue orders paid in the period'),
    by_product_type: {
      type: 'object',
      description:
        'With group_by=product_type: gross, refunds and net of the order lines per product type, as in the product ranking (before tax).',
      additionalProperties: {
        type: 'object',
        required: ['gross', 'refunds', 'net'],
        properties: {
          gross: moneyList(DEFINITIONS.productGross.replace('the range', 'the period')),
          refunds: moneyList(DEFINITIONS.productRefunds.replace('the range', 'the period')),
          net: moneyList(DEFINITIONS.productNet),
        },
      },
    },
  },
}

const productRow = {
  type: 'object',
  required: ['product_type', 'product_id', 'name', 'units', 'gross', 'refunds', 'net'],
  properties: {
    object: { const: 'product_revenue' },
    product_type: {
      type: 'string',
      enum: ['course', 'membership_plan', 'digital_product', 'event_ticket'],
    },
    product_id: {
      type: 'string',
      description: 'The id on the order line (a ticket id for event tickets)',
    },
    name: { type: 'string', description: 'The name on the most recent order line of the product' },
    units: count('Quantity sold on revenue orders paid in the range'),
    gross: moneyList(DEFINITIONS.productGross),
    refunds: moneyList(DEFINITIONS.productRefunds),
    net: moneyList(DEFINITIONS.productNet),
  },
}

const lessonRow = {
  type: 'object',
  required: ['lesson_id', 'title', 'completed', 'drop_off_rate'],
  properties: {
    lesson_id: { type: 'string' },
    title: { type: 'string' },
    completed: count('Learners of the cohort who completed the lesson by the end of the range'),
    drop_off_rate: rate(
      'Share of the learners who reached this lesson (completed the previous published lesson; for the first, the whole cohort) but did not complete it. 4 decimals.',
    ),
  },
}
const courseSchema = {
  type: 'object',
  description:
    'The cohort is the course’s enrollments started by the end of the range, revoked ones left out. Progress counts completions of published lessons dated before the end of the range. Lesson starts are not reported: Portico records lesson completions only.',
  required: [
    'object',
    'course_id',
    'enrollments',
    'active_learners',
    'completion_rate',
    'average_progress',
    'lessons',
  ],
  properties: {
    object: { const: 'course_analytics' },
    course_id: { type: 'string' },
    title: { type: 'string' },
    from: date('First day of the range'),
    to: date('Last day of the range (inclusive)'),
    timezone: { type: 'string' },
    enrollments: count('Enrollments of the course started in the range'),
    learners: count('Size of the cohort'),
    active_learners: count('Learners of the cohort who completed a lesson in the range'),
    completion_rate: rate(
      'Share of the cohort who completed every published lesson, a fraction in [0, 1] with 4 decimals (0 without published lessons)',
    ),
    average_progress: rate(
      'Mean over the cohort of completed published lessons / published lessons, a fraction in [0, 1] with 4 decimals',
    ),
    average_rating: {
      type: ['number', 'null'],
      description: 'Always null for now: Portico stores no course reviews.',
    },
    lessons: {
      type: 'array',
      items: lessonRow,
      description: 'Published lessons, curriculum order',
    },
  },
}
const studentPeriod = {
  type: 'object',
  required: ['period_start', 'signups', 'first_purchases', 'active_students'],
  properties: {
    period_start: date('First day of the calendar period'),
    signups: count('Students created in the period'),
    first_purchases: count(
      'Customers whose first counted order ever (positive total, any currency) was paid in the period',
    ),
    active_students: count('Distinct students who completed a lesson in the period'),
  },
}

const errors = {
  '400': problem(
    '`invalid_request`: a bad date, time zone, interval or other parameter (named in `errors[].field`), `from` after `to`, or a range too long',
  ),
  '401': problem('No token, or an invalid one'),
  '403': problem(
    '`insufficient_scope`: the token lacks analytics:read, or the role may not hold it (owners, admins and editors may)',
  ),
}
const report = (
  operationId: string,
  summary: string,
  description: string,
  parameters: unknown[],
  schema: Record<string, unknown>,
  more: Record<string, unknown> = {},
) => ({
  get: {
    operationId,
    summary,
    description,
    tags: ['analytics'],
    security: [{ oauth2: [SCOPE] }],
    parameters,
    responses: {
      '200': { description: summary, content: { 'application/json': { schema } } },
      ...errors,
      ...more,
    },
  },
})

const analyticsPaths: OpenApiPaths = {
  '/api/v1/analytics/overview': report(
    'getAnalyticsOverview',
    'Headline figures of a date range',
    `${REVENUE_RULES} Student, enrollment and subscription figures are defined on each property.`,
    [
      ...rangeParams,
      query(
        'compare',
        '`previous_period` adds the same figures for the preceding range of equal length.',
        {
          type: 'string',
          enum: ['previous_period'],
        },
      ),
    ],
    overviewSchema,
  ),
  '/api/v1/analytics/revenue': report(
    'getAnalyticsRevenue',
    'Revenue over time',
    `${REVENUE_RULES} Every period of the range is listed, zeros included; orders and refunds fall in the period of their local date in \`timezone\`.`,
    [
      ...rangeParams,
      intervalParam,
      query('group_by', '`product_type` adds `by_product_type` to each period.', {
        type: 'string',
        enum: ['product_type'],
      }),
    ],
    listOf(revenuePeriod, { interval: { type: 'string' }, ...currencyFields }),
  ),
  '/api/v1/analytics/products': report(
    'getAnalyticsProducts',
    'Products ranked by revenue',
    `${REVENUE_RULES} Per product (order line product_type and product_id), from the lines of revenue orders paid in the range. Ties are ordered by product type and id.`,
    [
      ...rangeParams,
      query('product_type', 'Only this type of product (`event` is accepted for `event_ticket`).', {
        type: 'string',
        enum: ['course', 'membership_plan', 'digital_product', 'event_ticket', 'event'],
      }),
      query('limit', 'How many products (1–200, default 20).', {
        type: 'integer',
        minimum: 1,
        maximum: 200,
        default: 20,
      }),
      query(
        'sort',
        'net_revenue, gross_revenue, refunds, units or name; `-` for descending. Money keys compare the amounts currency by currency, in the listed order.',
        {
          type: 'string',
          default: '-net_revenue',
        },
      ),
    ],
    listOf(productRow, currencyFields),
  ),
  '/api/v1/analytics/courses/{course_id}': report(
    'getAnalyticsCourse',
    'Performance of one course',
    'Enrollments, active learners, completion and the lesson-by-lesson funnel of a course at the end of the range.',
    [
      {
        name: 'course_id',
        in: 'path',
        required: true,
        schema: { type: 'string' },
        description: 'Course id or slug',
      },
      ...rangeParams,
    ],
    courseSchema,
    { '404': problem('No such course') },
  ),
  '/api/v1/analytics/students': report(
    'getAnalyticsStudents',
    'Student growth over time',
    'Signups, first purchases and active learners per period, every period present (zeros included), by local date in `timezone`.',
    [...rangeParams, intervalParam],
    listOf(studentPeriod, { interval: { type: 'string' } }),
  ),
}

export const analyticsArea: ApiArea = {
  resources: [],
  legacy: { paths: analyticsPaths, register: registerAnalyticsRoutes },
}
