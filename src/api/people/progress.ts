import type { AppDeps } from '../../app-deps.js'
import type { Db } from '../../storage/schema.js'
import { recordChange } from '../activity/record.js'
import { lessons } from '../catalogue/lessons.resource.js'
import { notFound, readsFull, writerOf } from '../framework/access.js'
import { defineEndpoint, type EndpointContext, jsonAnswer } from '../framework/endpoint.js'
import type { Endpoint } from '../framework/operation.js'
import { shown, view } from '../framework/views.js'
import { enrollments } from './enrollments.resource.js'

const COMPLETION = '/api/v1/enrollments/:id/lessons/:lesson_id/completion'

/** Progress of an enrollment over the published lessons of its course. */
async function progressOf(db: Db, enrollmentId: string, courseId: string) {
  const [published, done] = await Promise.all([
    db
      .selectFrom('lessons')
      .select('id')
      .where('course_id', '=', courseId)
      .where('status', '=', 'published')
      .execute(),
    db
      .selectFrom('lesson_progress')
      .select(['lesson_id', 'completed_at'])
      .where('enrollment_id', '=', enrollmentId)
      .orderBy('completed_at')
      .execute(),
  ])
  const counted = new Set(published.map((l) => l.id))
  const completed = done.filter((d) => counted.has(d.lesson_id)).length
  return {
    enrollment_id: enrollmentId,
    percent: counted.size === 0 ? 0 : Math.floor((completed * 100) / counted.size),
    completed_lessons: completed,
    total_lessons: counted.size,
    lessons: done,
  }
}

type Progress = Awaited<ReturnType<typeof progressOf>>

/** A completed lesson: which, and when. */
const completedLesson = view({ lesson_id: shown.string(), completed_at: shown.time() })

/** The progress as the API shows it: the counts, and every lesson marked complete. */
const progress = view<Progress>(
  {
    object: shown.constant('progress'),
    enrollment_id: shown.string(),
    percent: shown.integer({ minimum: 0, maximum: 100 }),
    completed_lessons: shown.integer(),
    total_lessons: shown.integer(),
    lessons: shown.list(completedLesson),
  },
  { required: ['object', 'enrollment_id', 'percent', 'completed_lessons', 'total_lessons'] },
)
const output = { description: 'The progress', schema: progress.schema }

/** The enrollment named in the path; 404 when there is none. */
async function enrollmentOf(deps: AppDeps, id: string) {
  const row = await deps.database.db
    .selectFrom('enrollments')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirst()
  if (!row) throw notFound(enrollments)
  return row
}

/**
 * Marks a lesson (of the enrollment's course) done or not, and completes the enrollment; the
 * change and its activity record in one transaction.
 */
async function mark({ deps, caller, params, operation }: EndpointContext, done: boolean) {
  const context = writerOf(caller, enrollments, deps)
  const enrollment = await enrollmentOf(deps, params.id ?? '')
  const lessonId = params.lesson_id ?? ''
  const lesson = await deps.database.db
    .selectFrom('lessons')
    .select('id')
    .where('id', '=', lessonId)
    .where('course_id', '=', enrollment.course_id)
    .executeTakeFirst()
  if (!lesson) throw notFound(lessons)
  const answer = await deps.database.db.transaction().execute(async (db) => {
    const marked = done
      ? await db
          .insertInto('lesson_progress')
          .values({ enrollment_id: enrollment.id, lesson_id: lessonId, completed_at: context.now })
          .onConflict((oc) => oc.columns(['enrollment_id', 'lesson_id']).doNothing())
          .executeTakeFirst()
          .then((r) => Number(r.numInsertedOrUpdatedRows ?? 0))
      : await db
          .deleteFrom('lesson_progress')
          .where('enrollment_id', '=', enrollment.id)
          .where('lesson_id', '=', lessonId)
          .executeTakeFirst()
          .then((r) => Number(r.numDeletedRows))
    const current = await progressOf(db, enrollment.id, enrollment.course_id)
    const complete = current.total_lessons > 0 && current.percent === 100
    const status =
      complete && enrollment.status === 'active'
        ? 'completed'
        : !complete && enrollment.status === 'completed'
          ? 'active'
          : undefined
    if (status)
      await db
        .updateTable('enrollments')
        .set({
          status,
          completed_at: status === 'completed' ? context.now : null,
          updated_at: context.now,
        })
        .where('id', '=', enrollment.id)
        .execute()
    // Marking what was already so changes nothing, and is no change to record.
    if (marked > 0 || status)
      await recordChange(
        { ...context, db },
        {
          operation,
          recordType: enrollments.object,
          recordId: enrollment.id,
          changes: [
            { field: done ? 'completed_lesson_id' : 'uncompleted_lesson_id', after: lessonId },
            ...(status ? [{ field: 'status', before: enrollment.status, after: status }] : []),
          ],
        },
      )
    return current
  })
  return jsonAnswer(progress.show(answer))
}

const writeProblems = {
  '401': 'No token, or an invalid one',
  '403': 'The token lacks students:write, or the role may not write',
  '404': 'No such enrollment, or the lesson is not in its course',
}

/** Lesson progress of enrollments (DOMAIN.md §4.3.3): read it, mark lessons done or not. */
export const progressEndpoints: readonly Endpoint[] = [
  defineEndpoint({
    name: 'enrollments.progress',
    method: 'GET',
    path: '/api/v1/enrollments/:id/progress',
    operationId: 'getEnrollmentProgress',
    summary: 'Progress of an enrollment over the published lessons of its course',
    tags: ['enrollments'],
    scope: 'students:read',
    output,
    problems: {
      '401': 'No token, or an invalid one',
      '403': 'The token lacks students:read',
      '404': 'No such enrollment',
    },
    async run({ deps, caller, params }) {
      readsFull(caller, enrollments, deps.config.issuer)
      const enrollment = await enrollmentOf(deps, params.id ?? '')
      return jsonAnswer(
        progress.show(await progressOf(deps.database.db, enrollment.id, enrollment.course_id)),
      )
    },
  }),
  defineEndpoint({
    name: 'enrollments.complete_lesson',
    method: 'PUT',
    path: COMPLETION,
    operationId: 'completeLesson',
    summary: 'Mark a lesson complete (completes the enrollment at 100 %)',
    tags: ['enrollments'],
    scope: 'students:write',
    output,
    problems: writeProblems,
    run: (context) => mark(context, true),
  }),
  defineEndpoint({
    name: 'enrollments.uncomplete_lesson',
    method: 'DELETE',
    path: COMPLETION,
    operationId: 'uncompleteLesson',
    summary: 'Mark a lesson incomplete',
    tags: ['enrollments'],
    scope: 'students:write',
    output,
    problems: writeProblems,
    run: (context) => mark(context, false),
  }),
]
