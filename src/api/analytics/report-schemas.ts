import {
  CURRENCY_RULE,
  DEFINITIONS,
  moneyListSchema,
  STATUS_RULE,
  TAX_RULE,
} from '../money/definitions.js'

/**
 * The JSON Schemas of the analytics reports' answers (OpenAPI), with what each figure means.
 * Answers are computed, not stored records, so no field declaration describes them.
 */

const moneyList = moneyListSchema
export const currencyFields = {
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

export const REVENUE_RULES = `Revenue (src/api/money): ${STATUS_RULE} net = gross − refunds (may be negative). Free or manual enrollments never count. ${TAX_RULE} Every money figure is a per-currency list: ${CURRENCY_RULE}`

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
export const overviewSchema = {
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

export const listOf = (items: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
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

export const revenuePeriod = {
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

export const productRow = {
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
export const courseSchema = {
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
export const studentPeriod = {
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
