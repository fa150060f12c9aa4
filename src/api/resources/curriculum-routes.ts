import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { AppDeps } from '../../app-deps.js'
import {
  etagOf,
  type FieldError,
  requireJsonContent,
  requireObject,
  validationFailed,
} from '../conventions.js'
import { notFound, readsFull, requireOwner, writerOf } from '../framework/access.js'
import type { Row } from '../framework/fields.js'
import { viewOf } from '../framework/resource.js'
import { createResourceStore, type ResourceDb, visibilityOf } from '../framework/store.js'
import { legacyCallerOf } from '../legacy-routes.js'
import type { OpenApiPaths } from '../openapi-paths.js'
import { courses } from './courses.js'
import { lessons } from './lessons.js'
import { sections } from './sections.js'

const TREE = '/api/v1/courses/:course_id/curriculum'
const ORDER = '/api/v1/courses/:course_id/curriculum/order'

/** The curriculum of a course as one tree: its sections in order, each with its lessons. */
async function treeOf(deps: AppDeps, course: Row, full: boolean): Promise<Record<string, unknown>> {
  const db = deps.database.db
  let sectionRows = db
    .selectFrom('sections')
    .selectAll()
    .where('course_id', '=', course.id as string)
  let lessonRows = db
    .selectFrom('lessons')
    .selectAll()
    .where('course_id', '=', course.id as string)
  if (!full) {
    sectionRows = sectionRows.where('status', '=', 'published')
    lessonRows = lessonRows.where('status', '=', 'published')
  }
  const [sectionList, lessonList] = await Promise.all([
    sectionRows.orderBy('position').orderBy('id').execute(),
    lessonRows.orderBy('position').orderBy('id').execute(),
  ])
  return {
    object: 'curriculum',
    course_id: course.id,
    sections: sectionList.map((section) => ({
      ...viewOf(sections, section, full, deps),
      lessons: lessonList
        .filter((lesson) => lesson.section_id === section.id)
        .map((lesson) => viewOf(lessons, lesson, full, deps)),
    })),
  }
}

interface Order {
  readonly sections: ReadonlyArray<{ readonly id: string; readonly lessonIds: readonly string[] }>
}

/** The new order must name every section and every lesson of the course exactly once. */
function checkOrder(
  body: Record<string, unknown>,
  sectionIds: Set<string>,
  lessonIds: Set<string>,
): Order {
  const errors: FieldError[] = []
  const seenSections = new Set<string>()
  const seenLessons = new Set<string>()
  for (const key of Object.keys(body))
    if (key !== 'sections')
      errors.push({
        field: key,
        code: 'unknown_field',
        message: `${key} is not a field of an order`,
      })
  const list = Array.isArray(body.sections) ? (body.sections as unknown[]) : undefined
  if (!list) errors.push({ field: 'sections', code: 'type', message: 'sections must be a list' })
  const order = (list ?? []).map((entry, i) => {
    const path = `sections[${i}]`
    const item = (typeof entry === 'object' && entry !== null ? entry : {}) as Record<
      string,
      unknown
    >
    const id = typeof item.id === 'string' ? item.id : ''
    if (!sectionIds.has(id) || seenSections.has(id))
      errors.push({
        field: `${path}.id`,
        code: 'invalid',
        message: 'not a section of this course, or repeated',
      })
    seenSections.add(id)
    const ids = Array.isArray(item.lesson_ids) ? (item.lesson_ids as unknown[]) : undefined
    if (!ids)
      errors.push({
        field: `${path}.lesson_ids`,
        code: 'type',
        message: 'lesson_ids must be a list',
      })
    const lessonList = (ids ?? []).map((lessonId, j) => {
      const value = typeof lessonId === 'string' ? lessonId : ''
      if (!lessonIds.has(value) || seenLessons.has(value))
        errors.push({
          field: `${path}.lesson_ids[${j}]`,
          code: 'invalid',
          message: 'not a lesson of this course, or repeated',
        })
      seenLessons.add(value)
      return value
    })
    return { id, lessonIds: lessonList }
  })
  if (list && (seenSections.size !== sectionIds.size || seenLessons.size !== lessonIds.size))
    errors.push({
      field: 'sections',
      code: 'incomplete',
      message: 'the order must list every section and every lesson of the course',
    })
  if (errors.length > 0) throw validationFailed(errors)
  return { sections: order }
}

/** The curriculum tree of a course, and reordering it in one request (DOMAIN.md §4.3.2). */
export function registerCurriculumRoutes(api: FastifyInstance, deps: AppDeps): void {
  const courseStore = createResourceStore(deps.database.db as unknown as ResourceDb, courses)
  const courseOf = async (request: FastifyRequest, full: boolean) => {
    const key = (request.params as { course_id: string }).course_id
    const course = await courseStore.findByKey(
      key,
      full ? undefined : visibilityOf(courses, 'get', deps.clock.now()),
    )
    if (!course) throw notFound(courses)
    return course
  }

  api.get(TREE, async (request, reply) => {
    const full = readsFull(legacyCallerOf(request), sections, deps.config.issuer)
    const body = await treeOf(deps, await courseOf(request, full), full)
    return reply
      .header('cache-control', 'no-store')
      .header('data-visibility', full ? 'full' : 'public')
      .header('etag', etagOf(body))
      .send(body)
  })

  api.put(ORDER, async (request, reply) => {
    const context = writerOf(legacyCallerOf(request), sections, deps)
    requireJsonContent(request.headers['content-type'])
    const body = requireObject(request.body)
    const course = await courseOf(request, true)
    // Reordering changes every section and lesson of the course: its curriculum's owner rule.
    await requireOwner(sections, context, { course_id: course.id })
    const db = deps.database.db
    const courseId = course.id as string
    const [sectionRows, lessonRows] = await Promise.all([
      db.selectFrom('sections').select('id').where('course_id', '=', courseId).execute(),
      db.selectFrom('lessons').select('id').where('course_id', '=', courseId).execute(),
    ])
    const order = checkOrder(
      body,
      new Set(sectionRows.map((r) => r.id)),
      new Set(lessonRows.map((r) => r.id)),
    )
    await db.transaction().execute(async (trx) => {
      for (const [i, section] of order.sections.entries()) {
        await trx
          .updateTable('sections')
          .set({ position: i, updated_at: context.now })
          .where('id', '=', section.id)
          .execute()
        for (const [j, lessonId] of section.lessonIds.entries())
          await trx
            .updateTable('lessons')
            .set({ section_id: section.id, position: j, updated_at: context.now })
            .where('id', '=', lessonId)
            .execute()
      }
    })
    const tree = await treeOf(deps, course, true)
    return reply.header('cache-control', 'no-store').header('etag', etagOf(tree)).send(tree)
  })
}

const problem = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
})
const courseParam = { name: 'course_id', in: 'path', required: true, schema: { type: 'string' } }
const treeSchema = {
  type: 'object',
  required: ['object', 'course_id', 'sections'],
  properties: {
    object: { const: 'curriculum' },
    course_id: { type: 'string' },
    sections: {
      type: 'array',
      description: 'In order; in the public projection only the published sections and lessons',
      items: {
        allOf: [
          { $ref: '#/components/schemas/Section' },
          {
            type: 'object',
            required: ['lessons'],
            properties: {
              lessons: { type: 'array', items: { $ref: '#/components/schemas/Lesson' } },
            },
          },
        ],
      },
    },
  },
}

export const curriculumPaths: OpenApiPaths = {
  '/api/v1/courses/{course_id}/curriculum': {
    get: {
      operationId: 'getCurriculum',
      summary:
        'The curriculum tree of a course: sections with their lessons (the public outline without curriculum:read)',
      tags: ['sections', 'lessons'],
      security: [{}, { oauth2: ['curriculum:read'] }],
      parameters: [courseParam],
      responses: {
        '200': { description: 'The tree', content: { 'application/json': { schema: treeSchema } } },
        '401': problem('Invalid token'),
        '404': problem('No such course, or not public'),
        '429': problem('Too many requests without a token from this address'),
      },
    },
  },
  '/api/v1/courses/{course_id}/curriculum/order': {
    put: {
      operationId: 'reorderCurriculum',
      summary: 'Reorder sections and lessons (and move lessons between sections) in one request',
      tags: ['sections', 'lessons'],
      security: [{ oauth2: ['curriculum:write'] }],
      parameters: [courseParam],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              type: 'object',
              additionalProperties: false,
              required: ['sections'],
              properties: {
                sections: {
                  type: 'array',
                  items: {
                    type: 'object',
                    required: ['id', 'lesson_ids'],
                    properties: {
                      id: { type: 'string' },
                      lesson_ids: { type: 'array', items: { type: 'string' } },
                    },
                  },
                },
              },
            },
          },
        },
      },
      responses: {
        '200': {
          description: 'The reordered tree',
          content: { 'application/json': { schema: treeSchema } },
        },
        '400': problem('Malformed body'),
        '401': problem('No token, or an invalid one'),
        '403': problem('The token lacks curriculum:write, or the role may not write'),
        '404': problem('No such course'),
        '415': problem('The body is not application/json'),
        '422': problem('The order does not list every section and lesson exactly once'),
      },
    },
  },
}
