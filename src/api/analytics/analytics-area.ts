import type { AppDeps } from '../../app-deps.js'
import type { ApiArea } from '../area.js'
import { defineEndpoint, type EndpointContext, jsonAnswer } from '../framework/endpoint.js'
import type { QueryMember } from '../framework/endpoint-query.js'
import type { Field, JsonSchema } from '../framework/fields.js'
import type { Endpoint } from '../framework/operation.js'
import { ProblemError } from '../problem.js'
import {
  compare,
  courseKey,
  groupBy,
  interval,
  limit,
  productType,
  RANGE,
  sort,
} from './parameters.js'
import { type ReportQuery, reportQuery } from './report-query.js'
import {
  course,
  overview,
  productList,
  REVENUE_RULES,
  revenueList,
  studentList,
} from './report-schemas.js'
import {
  courseReport,
  findCourse,
  overviewReport,
  productsReport,
  revenueReport,
  type SchoolSettings,
  schoolSettings,
  studentsReport,
} from './reports.js'

/**
 * Analytics (DOMAIN.md §4.3.6): read-only reports over the school's own orders, refunds,
 * enrollments, lesson progress and subscriptions. No record is stored, so there are no
 * framework resources: one endpoint per report, all behind `analytics:read` (no anonymous
 * access). Each report's query is the question it answers: a bad one is a 400.
 */
const SCOPE = 'analytics:read'
const BASE = '/api/v1/analytics'

const problems = {
  '400':
    '`invalid_request`: a bad date, time zone, interval or other parameter (named in `errors[].field`), `from` after `to`, or a range too long',
  '401': 'No token, or an invalid one',
  '403':
    '`insufficient_scope`: the token lacks analytics:read, or the role may not hold it (owners, admins and editors may)',
}

interface Report {
  readonly name: string
  readonly path: string
  readonly operationId: string
  readonly summary: string
  readonly description: string
  readonly params?: Readonly<Record<string, Field>>
  /** The parameters beyond the range. */
  readonly query?: Readonly<Record<string, QueryMember>>
  readonly schema: JsonSchema
  readonly problems?: Readonly<Record<string, string>>
  answer(
    deps: AppDeps,
    settings: SchoolSettings,
    query: ReportQuery,
    context: EndpointContext,
  ): Promise<unknown>
}

/** A report: its range and parameters checked, the school's settings read, its answer computed. */
const report = (r: Report): Endpoint =>
  defineEndpoint({
    name: r.name,
    method: 'GET',
    path: r.path,
    operationId: r.operationId,
    summary: r.summary,
    description: r.description,
    tags: ['analytics'],
    scope: SCOPE,
    ...(r.params && { params: r.params }),
    query: { ...RANGE, ...r.query },
    queryRules: { status: 400 },
    output: { description: r.summary, schema: r.schema },
    problems: { ...problems, ...r.problems },
    async run(context) {
      const { deps, now } = context
      const settings = await schoolSettings(deps.database.db)
      const query = reportQuery(context.query, settings.timeZone, now)
      return jsonAnswer(await r.answer(deps, settings, query, context))
    },
  })

/** The analytics reports, each a read of `analytics:read`. */
export const analyticsEndpoints: readonly Endpoint[] = [
  report({
    name: 'analytics.overview',
    path: `${BASE}/overview`,
    operationId: 'getAnalyticsOverview',
    summary: 'Headline figures of a date range',
    description: `${REVENUE_RULES} Student, enrollment and subscription figures are defined on each property.`,
    query: { compare },
    schema: overview.schema,
    answer: (deps, settings, query, { now }) =>
      overviewReport(deps.database.db, settings, query, now),
  }),
  report({
    name: 'analytics.revenue',
    path: `${BASE}/revenue`,
    operationId: 'getAnalyticsRevenue',
    summary: 'Revenue over time',
    description: `${REVENUE_RULES} Every period of the range is listed, zeros included; orders and refunds fall in the period of their local date in \`timezone\`.`,
    query: { interval, group_by: groupBy },
    schema: revenueList.schema,
    answer: (deps, settings, query) => revenueReport(deps.database.db, settings, query),
  }),
  report({
    name: 'analytics.products',
    path: `${BASE}/products`,
    operationId: 'getAnalyticsProducts',
    summary: 'Products ranked by revenue',
    description: `${REVENUE_RULES} Per product (order line product_type and product_id), from the lines of revenue orders paid in the range. Ties are ordered by product type and id.`,
    query: { product_type: productType, limit, sort },
    schema: productList.schema,
    answer: (deps, settings, query) => productsReport(deps.database.db, settings, query),
  }),
  report({
    name: 'analytics.course',
    path: `${BASE}/courses/:course_id`,
    operationId: 'getAnalyticsCourse',
    summary: 'Performance of one course',
    description:
      'Enrollments, active learners, completion and the lesson-by-lesson funnel of a course at the end of the range.',
    params: { course_id: courseKey },
    schema: course.schema,
    problems: { '404': 'No such course' },
    async answer(deps, _settings, query, { params }) {
      const course = await findCourse(deps.database.db, params.course_id ?? '')
      if (!course)
        throw new ProblemError(404, {
          code: 'not_found',
          title: 'Not Found',
          detail: 'no course with this id or slug',
        })
      return courseReport(deps.database.db, course, query)
    },
  }),
  report({
    name: 'analytics.students',
    path: `${BASE}/students`,
    operationId: 'getAnalyticsStudents',
    summary: 'Student growth over time',
    description:
      'Signups, first purchases and active learners per period, every period present (zeros included), by local date in `timezone`.',
    query: { interval },
    schema: studentList.schema,
    answer: (deps, settings, query) => studentsReport(deps.database.db, settings, query),
  }),
]

export const analyticsArea: ApiArea = { resources: [], endpoints: analyticsEndpoints }
