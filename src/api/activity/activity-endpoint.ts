import type { Role } from '../../oauth/roles.js'
import { defineEndpoint, jsonAnswer } from '../framework/endpoint.js'
import { queryText } from '../framework/endpoint-query.js'
import { MAX_LIMIT } from '../framework/list-params.js'
import type { Endpoint } from '../framework/operation.js'
import { pageSchema } from '../framework/page-schema.js'
import { ProblemError } from '../problem.js'
import { activitySchema, activityView, listActivity } from './activity-records.js'

/** Who reads every app's activity: the people who run the school. */
export const ACTIVITY_ROLES: readonly Role[] = ['owner', 'admin']

const documented = (description: string, schema: Record<string, unknown> = {}) => {
  const member = queryText({ description })
  return { ...member, schema: () => ({ ...member.schema(), ...schema }) }
}

/**
 * `GET /api/v1/activity` (issue 21): what the apps of the school changed with their tokens,
 * newest first, for the owners and admins (school:read alone is not enough: an editor holds
 * it too). Filters and cursors are those of every list (parseListParams).
 */
export const activityEndpoint: Endpoint = defineEndpoint({
  name: 'activity.list',
  method: 'GET',
  path: '/api/v1/activity',
  operationId: 'listActivity',
  summary: 'What each app changed with its access token, newest first (owners and admins)',
  description:
    'Every successful write made with an access token, through any binding: when, the person, the app (client id, name, metadata document URL), the grant, the operation, the record and the fields that changed, with their values before and after for closed values (states, numbers, times, ids), money and short text (titles, names, slugs: at most 200 characters); long or rich text, links, addresses and secret-like fields (coupon codes, passwords, tokens, file contents) by name only. A write that changes nothing is not recorded. Dry runs are not recorded. Kept PORTICO_ACTIVITY_RETENTION_DAYS days (90 by default).',
  tags: ['activity'],
  scope: 'school:read',
  roles: ACTIVITY_ROLES,
  before({ caller }) {
    if (!ACTIVITY_ROLES.includes(caller.user.role))
      throw new ProblemError(403, {
        code: 'forbidden_role',
        title: 'Forbidden',
        detail: `the ${caller.user.role} role may not read the activity record (owners and admins may)`,
      })
  },
  query: {
    client: documented('Only the changes of this client_id'),
    person: documented('Only the changes made with this person’s tokens (a user id)'),
    resource: documented('Only changes of records of this object, e.g. course'),
    record_id: documented('Only changes of this record'),
    operation: documented('Only this operation, e.g. courses.update'),
    since: documented('Only changes at or after this time', { format: 'date-time' }),
    until: documented('Only changes before this time', { format: 'date-time' }),
    limit: documented(`Page size, 1 to ${MAX_LIMIT} (default 20)`),
    cursor: documented('The next_cursor of the previous page'),
  },
  queryRules: { status: 400 },
  output: {
    description: 'A page of activity, newest first',
    schema: pageSchema(activitySchema, { counted: true }),
  },
  problems: {
    '400': 'An unknown filter, a malformed time, a bad limit or cursor',
    '401': 'No token, or an invalid one',
    '403': 'The token lacks school:read, or the person is not an owner or admin',
  },
  async run({ deps, input }) {
    const page = await listActivity(deps, input.query)
    return jsonAnswer({
      object: 'list',
      data: page.rows.map(activityView),
      has_more: page.hasMore,
      next_cursor: page.nextCursor,
      total_count: page.total,
    })
  },
})
