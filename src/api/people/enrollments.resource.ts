import { type FieldError, validationFailed } from '../conventions.js'
import { enumeration, instant, type Row, reference } from '../framework/fields.js'
import { defineResource, type ResourceContext } from '../framework/resource.js'
import { lengthensAccess, refuseBlockedLearner } from './blocked-learners.js'
import { schoolWide } from './owners.js'

async function update(
  context: ResourceContext,
  row: { readonly id: string },
  changes: Row,
): Promise<string> {
  await context.db
    .updateTable('enrollments')
    .set({ ...changes, updated_at: context.now })
    .where('id', '=', row.id)
    .execute()
  return row.id
}

/**
 * A student's access to a course (DOMAIN.md §4.3.3). Enrolling is idempotent per student and
 * course: enrolling again answers 200 with the enrollment (reactivated if it had ended).
 * Unenrolling (DELETE) revokes access and keeps the record and its progress. A blocked
 * learner is neither enrolled (again) nor given a later end (blocked-learners.ts).
 */
export const enrollments = defineResource({
  object: 'enrollment',
  collection: 'enrollments',
  table: 'enrollments',
  idPrefix: 'enr',
  summary: 'Enrollments of students in courses',
  scopes: { read: 'students:read', write: 'students:write' },
  writeRoles: ['owner', 'admin', 'teaching_assistant'],
  ownership: schoolWide(
    'An enrollment is the school’s record of a learner in a course; teaching assistants manage every learner (DOMAIN.md §4.1)',
  ),
  operations: ['list', 'get', 'create', 'update', 'delete'],
  fields: {
    student_id: reference('stu', { required: true, immutable: true, filter: true }),
    course_id: reference('crs', { required: true, immutable: true, filter: true }),
    pricing_plan_id: reference('pln', { nullable: true, immutable: true }),
    status: enumeration(['active', 'completed', 'expired', 'revoked'], {
      readOnly: true,
      filter: true,
      default: 'active',
    }),
    source: enumeration(['purchase', 'manual', 'membership', 'free', 'import', 'api'], {
      readOnly: true,
      filter: true,
      default: 'api',
    }),
    started_at: instant({ readOnly: true }),
    completed_at: instant({ readOnly: true, nullable: true }),
    expires_at: instant({ nullable: true, filter: true, description: 'null: lifetime access' }),
  },
  async existing(context, values) {
    const found = await context.db
      .selectFrom('enrollments')
      .select(['id', 'status'])
      .where('student_id', '=', values.student_id!)
      .where('course_id', '=', values.course_id!)
      .executeTakeFirst()
    if (!found) return undefined
    // Enrolling again is enrolling: refused for a blocked learner, whatever the state.
    await refuseBlockedLearner(context, { student_id: values.student_id! })
    return found.id
  },
  async reuse(context, row, values) {
    if (row.status === 'revoked' || row.status === 'expired')
      await update(context, row, { status: 'active', expires_at: values.expires_at ?? null })
  },
  async beforeCreate(context, values) {
    values.started_at = context.now
    const errors: FieldError[] = []
    const [student, course] = await Promise.all([
      context.db
        .selectFrom('students')
        .select('id')
        .where('id', '=', values.student_id!)
        .executeTakeFirst(),
      context.db
        .selectFrom('courses')
        .select(['id', 'pricing_plans'])
        .where('id', '=', values.course_id!)
        .executeTakeFirst(),
    ])
    if (!student)
      errors.push({ field: 'student_id', code: 'not_found', message: 'no student with this id' })
    if (!course)
      errors.push({ field: 'course_id', code: 'not_found', message: 'no course with this id' })
    const plan = values.pricing_plan_id
    if (course && typeof plan === 'string') {
      const plans = JSON.parse(course.pricing_plans) as Array<{ id?: string }>
      if (!plans.some((p) => p.id === plan))
        errors.push({
          field: 'pricing_plan_id',
          code: 'not_found',
          message: 'no such plan on this course',
        })
    }
    if (errors.length > 0) throw validationFailed(errors)
    await refuseBlockedLearner(context, { student_id: values.student_id! })
  },
  async beforeWrite(context, values, existing) {
    // A later end (or none) is new access: not for a blocked learner.
    if (existing && lengthensAccess(existing.expires_at, values.expires_at))
      await refuseBlockedLearner(context, { student_id: existing.student_id })
  },
  async remove(context, row) {
    await update(context, row, { status: 'revoked' })
  },
  lifecycle: {
    expire: {
      summary: 'End access now, keeping progress',
      to: 'expired',
      stamp: 'expires_at',
    },
  },
})
