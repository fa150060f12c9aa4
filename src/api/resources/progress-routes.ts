import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { AppDeps } from '../../app-deps.js'
import { timestamp } from '../conventions.js'
import { notFound, readsFull, writerOf } from '../framework/access.js'
import type { OpenApiPaths } from '../openapi-paths.js'
import { enrollments } from './enrollments.js'
import { lessons } from './lessons.js'

const PROGRESS = '/api/v1/enrollments/:id/progress'
const COMPLETION = '/api/v1/enrollments/:id/lessons/:lesson_id/completion'

/** Progress of an enrollment over the published lessons of its course. */
async function progressOf(deps: AppDeps, enrollmentId: string, courseId: string) {
  const db = deps.database.db
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
    object: 'progress',
    enrollment_id: enrollmentId,
    percent: counted.size === 0 ? 0 : Math.floor((completed * 100) / counted.size),
    completed_lessons: completed,
    total_lessons: counted.size,
    lessons: done.map((d) => ({ lesson_id: d.lesson_id, completed_at: timestamp(d.completed_at) })),
  }
}

/** Lesson progress of enrollments (DOMAIN.md §4.3.3): read it, mark lessons done or not. */
export function registerProgressRoutes(api: FastifyInstance, deps: AppDeps): void {
  const db = deps.database.db
  const enrollmentOf = async (request: FastifyRequest) => {
    const { id } = request.params as { id: string }
    const row = await db
      .selectFrom('enrollments')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst()
    if (!row) throw notFound(enrollments)
    return row
  }

  api.get(PROGRESS, async (request, reply) => {
    readsFull(request, enrollments, deps.config.issuer)
    const enrollment = await enrollmentOf(request)
    return reply
      .header('cache-control', 'no-store')
      .send(await progressOf(deps, enrollment.id, enrollment.course_id))
  })

  /** Marks a lesson (of the enrollment's course) done or not, and completes the enrollment. */
  async function mark(request: FastifyRequest, done: boolean) {
    const context = writerOf(request, enrollments, deps)
    const enrollment = await enrollmentOf(request)
    const { lesson_id: lessonId } = request.params as { lesson_id: string }
    const lesson = await db
      .selectFrom('lessons')
      .select('id')
      .where('id', '=', lessonId)
      .where('course_id', '=', enrollment.course_id)
      .executeTakeFirst()
    if (!lesson) throw notFound(lessons)
    if (done)
      await db
        .insertInto('lesson_progress')
        .values({ enrollment_id: enrollment.id, lesson_id: lessonId, completed_at: context.now })
        .onConflict((oc) => oc.columns(['enrollment_id', 'lesson_id']).doNothing())
        .execute()
    else
      await db
        .deleteFrom('lesson_progress')
        .where('enrollment_id', '=', enrollment.id)
        .where('lesson_id', '=', lessonId)
        .execute()
    const progress = await progressOf(deps, enrollment.id, enrollment.course_id)
    const complete = progress.total_lessons > 0 && progress.percent === 100
    if (complete && enrollment.status === 'active')
      await db
        .updateTable('enrollments')
        .set({ status: 'completed', completed_at: context.now, updated_at: context.now })
        .where('id', '=', enrollment.id)
        .execute()
    else if (!complete && enrollment.status === 'completed')
      await db
        .updateTable('enrollments')
        .set({ status: 'active', completed_at: null, updated_at: context.now })
        .where('id', '=', enrollment.id)
        .execute()
    return progress
  }

  api.put(COMPLETION, async (request, reply) =>
    reply.header('cache-control', 'no-store').send(await mark(request, true)),
  )
  api.delete(COMPLETION, async (request, reply) =>
    reply.header('cache-control', 'no-store').send(await mark(request, false)),
  )
}

const problem = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
})
const progressSchema = {
  type: 'object',
  required: ['object', 'enrollment_id', 'percent', 'completed_lessons', 'total_lessons'],
  properties: {
    object: { const: 'progress' },
    enrollment_id: { type: 'string' },
    percent: { type: 'integer', minimum: 0, maximum: 100 },
    completed_lessons: { type: 'integer' },
    total_lessons: { type: 'integer' },
    lessons: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          lesson_id: { type: 'string' },
          completed_at: { type: 'string', format: 'date-time' },
        },
      },
    },
  },
}
const ok = {
  description: 'The progress',
  content: { 'application/json': { schema: progressSchema } },
}
const idParam = { name: 'id', in: 'path', required: true, schema: { type: 'string' } }
const lessonParam = { name: 'lesson_id', in: 'path', required: true, schema: { type: 'string' } }
const writeErrors = {
  '401': problem('No token, or an invalid one'),
  '403': problem('The token lacks students:write, or the role may not write'),
  '404': problem('No such enrollment, or the lesson is not in its course'),
}
const mark = (operationId: string, summary: string) => ({
  operationId,
  summary,
  tags: ['enrollments'],
  security: [{ oauth2: ['students:write'] }],
  parameters: [idParam, lessonParam],
  responses: { '200': ok, ...writeErrors },
})

export const progressPaths: OpenApiPaths = {
  '/api/v1/enrollments/{id}/progress': {
    get: {
      operationId: 'getEnrollmentProgress',
      summary: 'Progress of an enrollment over the published lessons of its course',
      tags: ['enrollments'],
      security: [{ oauth2: ['students:read'] }],
      parameters: [idParam],
      responses: {
        '200': ok,
        '401': problem('No token, or an invalid one'),
        '403': problem('The token lacks students:read'),
        '404': problem('No such enrollment'),
      },
    },
  },
  '/api/v1/enrollments/{id}/lessons/{lesson_id}/completion': {
    put: mark('completeLesson', 'Mark a lesson complete (completes the enrollment at 100 %)'),
    delete: mark('uncompleteLesson', 'Mark a lesson incomplete'),
  },
}
