import { activityView, listActivity } from '../api/activity/activity-records.js'
import type { Change } from '../api/activity/changes.js'
import { labelsOf } from '../api/activity/labels.js'
import { describeActivity, timeAgo } from '../api/activity/sentence.js'
import { ProblemError } from '../api/problem.js'
import type { AppDeps } from '../app-deps.js'
import type { User } from '../storage/users.js'
import type { ActivityModel } from '../views/account-page.js'

/** Changes per page of the account page. */
const PAGE = 20

/** The page's address for another page or app of the activity list. */
function hrefOf(app: string | undefined, cursor: string | undefined): string {
  const query = new URLSearchParams()
  if (app) query.set('app', app)
  if (cursor) query.set('cursor', cursor)
  const text = query.toString()
  return `/account${text ? `?${text}` : ''}#activity`
}

/**
 * The activity section of /account: owners and admins see what every app at the school
 * changed, anyone else what their own apps changed; narrowed to one app (`app`, a client id)
 * and paged by keyset cursor. A cursor that is not one of ours shows the first page.
 */
export async function accountActivity(
  deps: AppDeps,
  viewer: User,
  everyone: boolean,
  app: string | undefined,
  cursor: string | undefined,
): Promise<ActivityModel> {
  const own = everyone ? undefined : viewer.id
  const filter = { ...(app && { client: app }), limit: String(PAGE) }
  let page: Awaited<ReturnType<typeof listActivity>>
  let paged = cursor !== undefined
  try {
    page = await listActivity(deps, { ...filter, ...(cursor && { cursor }) }, own)
  } catch (error) {
    if (!(error instanceof ProblemError)) throw error
    page = await listActivity(deps, filter, own)
    paged = false
  }
  const labels = await labelsOf(deps, page.rows)
  const people = new Map<string, string>()
  if (everyone)
    for (const id of new Set(page.rows.map((r) => String(r.user_id)))) {
      const person = await deps.users.findById(id)
      people.set(id, person ? person.name : 'a former member')
    }
  // Whoever said yes to a change that waited for one (issue 35), by name.
  const approvers = new Map<string, string>()
  for (const id of new Set(
    page.rows.flatMap((r) => (r.approved_by ? [String(r.approved_by)] : [])),
  )) {
    const approver = id === viewer.id ? viewer : await deps.users.findById(id)
    approvers.set(
      id,
      approver ? (approver.id === viewer.id ? 'you' : approver.name) : 'a former member',
    )
  }
  const now = deps.clock.now()
  const entries = page.rows.map((row) => {
    const record = activityView(row)
    return {
      appName: (record.client_name as string | null) ?? 'Unnamed application',
      person: record.user_id === viewer.id ? undefined : people.get(String(record.user_id)),
      sentence: describeActivity(
        {
          operation: String(record.operation),
          record_type: record.record_type as string | null,
          record_id: record.record_id as string | null,
          changes: record.changes as Change[],
        },
        labels.get(`${row.record_type}:${row.record_id}`),
      ),
      at: String(record.created_at),
      ago: timeAgo(Number(row.created_at), now),
      ...(row.approved_by ? { approvedBy: approvers.get(String(row.approved_by)) } : {}),
    }
  })
  const name = page.rows[0]?.client_name
  return {
    everyone,
    app: app ? { clientId: app, name: typeof name === 'string' ? name : app } : undefined,
    entries,
    olderHref: page.nextCursor ? hrefOf(app, page.nextCursor) : undefined,
    newestHref: paged ? hrefOf(app, undefined) : undefined,
  }
}
