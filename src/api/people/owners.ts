import type { FieldError } from '../conventions.js'
import { type Row, reference } from '../framework/fields.js'
import type { Ownership, ResourceContext } from '../framework/resource.js'
import { list } from '../framework/structures.js'

/**
 * The owners of records that a lecturer may change (DOMAIN.md §4.1: "lecturers (rw own
 * profile)", curriculum, events): a lecturer is the team member a lecturer profile links with
 * `member_id`; they host the events and teach the courses that list that profile in
 * `lecturer_ids`.
 */

/** The ids of the lecturer profiles linked to the caller. */
export async function profilesOf(context: ResourceContext): Promise<Set<string>> {
  const rows = await context.db
    .selectFrom('lecturers')
    .select('id')
    .where('member_id', '=', context.caller.user.id)
    .execute()
  return new Set(rows.map((r) => r.id))
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

/** The ids of a course's or an event's lecturers, in display order, stored as JSON. */
export const lecturerIdsField = () =>
  list(reference('lec'), {
    max: 10,
    noun: 'lecturer ids',
    dropRepeats: true,
    public: true,
    default: [],
  })

/** Adds an error for each id of a write's `lecturer_ids` that names no lecturer profile. */
export async function checkLecturerIds(
  context: ResourceContext,
  values: Row,
  errors: FieldError[],
): Promise<void> {
  if (typeof values.lecturer_ids !== 'string') return
  const ids = JSON.parse(values.lecturer_ids) as string[]
  if (ids.length === 0) return
  const rows = await context.db
    .selectFrom('lecturers')
    .select('id')
    .where('id', 'in', ids)
    .execute()
  const found = new Set(rows.map((l) => l.id))
  ids.forEach((id, i) => {
    if (!found.has(id))
      errors.push({ field: `lecturer_ids[${i}]`, code: 'not_found', message: 'no such lecturer' })
  })
}

/** Whether the caller teaches the course `courseId` (their profile in its lecturer_ids). */
async function teaches(context: ResourceContext, courseId: unknown): Promise<boolean> {
  if (typeof courseId !== 'string') return false
  const course = await context.db
    .selectFrom('courses')
    .select('lecturer_ids')
    .where('id', '=', courseId)
    .executeTakeFirst()
  return course !== undefined && hostedBy(course.lecturer_ids, await profilesOf(context))
}

/**
 * Sections and lessons: a lecturer changes the curriculum of the courses they teach. A new
 * lesson names its section, not yet its course: the section's course is the one.
 */
export const curriculumOwnership: Ownership = {
  kind: 'person',
  limited: ['lecturer'],
  rule: 'a lecturer changes the curriculum only of the courses that list their lecturer profile in lecturer_ids',
  async owns(context, row) {
    if (typeof row.course_id === 'string') return teaches(context, row.course_id)
    if (typeof row.section_id !== 'string') return false
    const section = await context.db
      .selectFrom('sections')
      .select('course_id')
      .where('id', '=', row.section_id)
      .executeTakeFirst()
    return teaches(context, section?.course_id)
  },
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
