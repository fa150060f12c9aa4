import type { AppDeps } from '../app-deps.js'
import { activityEndpoint } from './activity/activity-endpoint.js'
import { countingRefusals } from './activity/refusals.js'
import { confirming } from './approvals/confirmations.js'
import { curriculumEndpoints } from './catalogue/curriculum.js'
import type { ApiOperation, Endpoint, OperationSpec } from './framework/operation.js'
import { resourceOperationSpecs, resourceOperations } from './framework/resource-operations.js'
import { accountEndpoints } from './people/own-account-endpoints.js'
import { progressEndpoints } from './people/progress.js'
import { AREAS, RESOURCES } from './registry.js'
import { apiIndexEndpoint } from './school/api-index.js'
import { searchEndpoint } from './search/search-endpoint.js'

/**
 * The catalogue of operations: every operation of the API, resource and hand-written endpoint
 * alike, each in one named area. HTTP binds it as REST routes, MCP as tools (and toolsets by
 * area), the demo loader runs it; nothing else lists operations.
 */

/** The areas, in the order a catalogue lists them, each with what it holds. */
export const OPERATION_AREAS = {
  catalog: 'Courses, their categories, sections, lessons and curriculum, and lecturers',
  people: 'Students, their enrollments and progress, and the school’s team',
  commerce: 'Orders, coupons, membership plans, subscriptions and digital products',
  events: 'Events and their attendees',
  content: 'Posts and their categories, pages, forms and submissions, comments, appearance',
  analytics: 'Revenue, sales, students and course reports',
  admin:
    'The school’s settings, the caller’s account, file storage, the activity record, and search across the school',
} as const

export type OperationArea = keyof typeof OPERATION_AREAS
export const AREA_NAMES = Object.keys(OPERATION_AREAS) as readonly OperationArea[]

/** The area of each collection (an operation's name up to its dot: `courses.list`). */
const AREA_OF_COLLECTION: Readonly<Record<string, OperationArea>> = {
  courses: 'catalog',
  course_categories: 'catalog',
  sections: 'catalog',
  lessons: 'catalog',
  curriculum: 'catalog',
  lecturers: 'catalog',
  students: 'people',
  enrollments: 'people',
  members: 'people',
  orders: 'commerce',
  coupons: 'commerce',
  membership_plans: 'commerce',
  subscriptions: 'commerce',
  digital_products: 'commerce',
  events: 'events',
  event_attendees: 'events',
  posts: 'content',
  post_categories: 'content',
  pages: 'content',
  forms: 'content',
  form_submissions: 'content',
  comments: 'content',
  appearance: 'content',
  analytics: 'analytics',
  school: 'admin',
  account: 'admin',
  storage: 'admin',
  activity: 'admin',
  search: 'admin',
}

/** The area of an operation, by its collection; an operation of no known area is a bug. */
export function areaOf(operationName: string): OperationArea {
  const collection = operationName.slice(0, operationName.indexOf('.'))
  const area = AREA_OF_COLLECTION[collection]
  if (!area) throw new Error(`the operation ${operationName} belongs to no area (operations.ts)`)
  return area
}

/** The hand-written operations, declared with defineEndpoint. */
export const ENDPOINTS: readonly Endpoint[] = [
  apiIndexEndpoint,
  ...accountEndpoints,
  activityEndpoint,
  ...progressEndpoints,
  ...curriculumEndpoints,
  ...AREAS.flatMap((area) => area.endpoints ?? []),
  searchEndpoint,
]

/**
 * What every operation is before it is bound, in the catalogue's order: the OpenAPI document's
 * paths are generated from these (http/api-routes.ts), so an operation and its documentation
 * cannot part.
 */
export const API_OPERATION_SPECS: readonly OperationSpec[] = [
  ...RESOURCES.flatMap(resourceOperationSpecs),
  ...ENDPOINTS,
]

/** An operation of the catalogue: bound to the application, in its area. */
export type CataloguedOperation = ApiOperation & { readonly area: OperationArea }

/**
 * Every operation of the API, bound to the application's dependencies, in the catalogue's
 * order (the resources' declarations, then the hand-written ones); each write counts the
 * calls refused for scope or role per grant (the activity record, issue 21), and waits for
 * a yes when its confirmation says so (approvals/policy.ts, issue 35).
 */
export function apiOperations(deps: AppDeps): CataloguedOperation[] {
  return [
    ...RESOURCES.flatMap((resource) => resourceOperations(resource, deps)),
    ...ENDPOINTS.map((endpoint) => endpoint.bind(deps)),
  ].map((operation) => ({
    ...countingRefusals(deps, confirming(deps, operation)),
    area: areaOf(operation.name),
  }))
}
