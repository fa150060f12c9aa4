import { PRODUCT_TYPES } from '../commerce/orders.resource.js'
import { type Shown, shown, type View, view } from '../framework/views.js'
import { CURRENCY_RULE, DEFINITIONS, STATUS_RULE, TAX_RULE } from '../money/definitions.js'
import { INTERVALS } from './calendar.js'

/**
 * The analytics reports' answers, declared once as views: each report returns
 * `someView.show(computed)`, and OpenAPI shows `someView.schema`, with what each figure means.
 * Answers are computed, not stored records, so no resource declaration describes them.
 */

type Members = Readonly<Record<string, Shown<unknown>>>

const count = (description: string) => shown.integer({ minimum: 0, description })
const rate = (description: string) => shown.number({ minimum: 0, maximum: 1, description })
const date = (description: string) => shown.string({ format: 'date', description })
const money = shown.money

export const currencyFields: Members = {
  currency: shown.string({
    description: 'The school currency (listed first in every money figure)',
  }),
  currencies: shown.list(shown.string(), {
    description: `The currencies every money figure lists, in order. ${CURRENCY_RULE}`,
  }),
}

/** The period length a series was asked for. */
const intervalField: Members = { interval: shown.string({ enum: INTERVALS }) }

export const REVENUE_RULES = `Revenue (src/api/money): ${STATUS_RULE} net = gross − refunds (may be negative). Free or manual enrollments never count. ${TAX_RULE} Every money figure is a per-currency list: ${CURRENCY_RULE}`

const revenue = view(
  {
    gross: money(DEFINITIONS.orderGross),
    refunds: money(DEFINITIONS.orderRefunds),
    net: money(DEFINITIONS.orderNet),
  },
  { required: ['gross', 'refunds', 'net'] },
)

const figures = {
  revenue: shown.object(revenue),
  orders_count: count('Revenue orders paid in the range.'),
  paying_customers: count(
    'Distinct customers (the student, or the lower-cased email of an order without one) with a revenue order of a positive total paid in the range.',
  ),
  average_order_value: money(DEFINITIONS.averageOrderValue),
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
  mrr: money(`At the end of the range (or now, if sooner). ${DEFINITIONS.mrr}`),
  churned_subscriptions: count('Subscriptions whose `ended_at` falls in the range.'),
}

/** The figures of the range before, with compare=previous_period. */
const previous = view(
  { from: date('First day'), to: date('Last day'), ...figures },
  {
    description:
      'With compare=previous_period: the same figures for the range of the same length ending the day before `from`.',
  },
)

const range = {
  from: date('First day of the range'),
  to: date('Last day of the range (inclusive)'),
  timezone: shown.string(),
}

export const overview = view<unknown, Members>(
  {
    object: shown.constant('analytics_overview'),
    ...range,
    ...currencyFields,
    ...figures,
    previous: shown.object(previous),
  },
  {
    required: [
      'object',
      'from',
      'to',
      'timezone',
      'currency',
      'currencies',
      ...Object.keys(figures),
    ],
  },
)

/** A report's list: the range, `extra` members, then the rows (`items`). */
export const listOf = <T>(items: View<T>, extra: Members = {}) =>
  view(
    {
      object: shown.constant('list'),
      ...range,
      ...extra,
      data: shown.list(items),
      has_more: shown.boolean(),
      total_count: shown.integer(),
    },
    { required: ['object', 'data', 'from', 'to', 'timezone'] },
  )

const productTypeRevenue = view(
  {
    gross: money(DEFINITIONS.productGross.replace('the range', 'the period')),
    refunds: money(DEFINITIONS.productRefunds.replace('the range', 'the period')),
    net: money(DEFINITIONS.productNet),
  },
  { required: ['gross', 'refunds', 'net'] },
)

export const revenuePeriod = view(
  {
    period_start: date('First day of the calendar period'),
    gross: money(DEFINITIONS.orderGross.replace('the range', 'the period')),
    refunds: money(DEFINITIONS.orderRefunds.replace('the range', 'the period')),
    net: money(DEFINITIONS.orderNet),
    orders_count: count('Revenue orders paid in the period'),
    by_product_type: shown.map(productTypeRevenue, {
      description:
        'With group_by=product_type: gross, refunds and net of the order lines per product type, as in the product ranking (before tax).',
    }),
  },
  { required: ['period_start', 'gross', 'refunds', 'net', 'orders_count'] },
)

export const productRow = view(
  {
    object: shown.constant('product_revenue'),
    product_type: shown.string({ enum: PRODUCT_TYPES }),
    product_id: shown.string({
      description: 'The id on the order line (a ticket id for event tickets)',
    }),
    name: shown.string({ description: 'The name on the most recent order line of the product' }),
    units: count('Quantity sold on revenue orders paid in the range'),
    gross: money(DEFINITIONS.productGross),
    refunds: money(DEFINITIONS.productRefunds),
    net: money(DEFINITIONS.productNet),
  },
  { required: ['product_type', 'product_id', 'name', 'units', 'gross', 'refunds', 'net'] },
)

const lessonRow = view(
  {
    lesson_id: shown.string(),
    title: shown.string(),
    completed: count('Learners of the cohort who completed the lesson by the end of the range'),
    drop_off_rate: rate(
      'Share of the learners who reached this lesson (completed the previous published lesson; for the first, the whole cohort) but did not complete it. 4 decimals.',
    ),
  },
  { required: ['lesson_id', 'title', 'completed', 'drop_off_rate'] },
)

export const course = view(
  {
    object: shown.constant('course_analytics'),
    course_id: shown.string(),
    title: shown.string(),
    ...range,
    enrollments: count('Enrollments of the course started in the range'),
    learners: count('Size of the cohort'),
    active_learners: count('Learners of the cohort who completed a lesson in the range'),
    completion_rate: rate(
      'Share of the cohort who completed every published lesson, a fraction in [0, 1] with 4 decimals (0 without published lessons)',
    ),
    average_progress: rate(
      'Mean over the cohort of completed published lessons / published lessons, a fraction in [0, 1] with 4 decimals',
    ),
    average_rating: shown.number({
      nullable: true,
      description: 'Always null for now: Portico stores no course reviews.',
    }),
    lessons: shown.list(lessonRow, { description: 'Published lessons, curriculum order' }),
  },
  {
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
  },
)

export const studentPeriod = view(
  {
    period_start: date('First day of the calendar period'),
    signups: count('Students created in the period'),
    first_purchases: count(
      'Customers whose first counted order ever (positive total, any currency) was paid in the period',
    ),
    active_students: count('Distinct students who completed a lesson in the period'),
  },
  { required: ['period_start', 'signups', 'first_purchases', 'active_students'] },
)

/** The lists the series and ranking reports answer. */
export const revenueList = listOf(revenuePeriod, { ...intervalField, ...currencyFields })
export const productList = listOf(productRow, currencyFields)
export const studentList = listOf(studentPeriod, intervalField)
