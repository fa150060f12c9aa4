import type { Ownership, ResourceContext } from '../framework/resource.js'

/**
 * The owners of records that a lecturer may change (DOMAIN.md §4.1: "lecturers (rw own
 * profile)", events): a lecturer is the team member a lecturer profile links with
 * `member_id`, and hosts the events that list that profile in `lecturer_ids`.
 */

/** The ids of the lecturer profiles linked to the caller. */
export async function profilesOf(context: ResourceContext): Promise<Set<string>> {
  const rows = await context.db
    .selectFrom('lecturers')
    .select('id')
    .where('member_id', '=', context.caller.user.id)
    .execute()
  return new Set(rows.map((r) => r.id as string))
}

/** Whether a `lecturer_ids` column (JSON list) names one of `profiles`. */
export function hostedBy(lecturerIds: unknown, profiles: ReadonlySet<string>): boolean {
  if (typeof lecturerIds !== 'string' || profiles.size === 0) return false
  try {
    const ids: unknown = JSON.parse(lecturerIds)
    return Array.isArray(ids) && ids.some((id) => typeof id === 'string' && profiles.has(id))
  } catch {
    return false
  }
}

/** The reason given by resources whose writers are all school-wide roles. */
export const schoolWide = (what: string): Ownership => ({
  kind: 'school',
  reason: `${what}; every role that may write them acts for the whole school`,
})

/** The reason given by resources the API never writes (no write scope, no write role). */
export const notWrittenByApi = (what: string): Ownership => ({
  kind: 'school',
  reason: `${what}; the API serves them read-only, so no role changes them here`,
})
