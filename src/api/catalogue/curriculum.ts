import type { AppDeps } from '../../app-deps.js'
import { recordChange } from '../activity/record.js'
import { type FieldError, validationFailed } from '../conventions.js'
import { notFound, readsFull, requireOwner, writerOf } from '../framework/access.js'
import { defineEndpoint, jsonAnswer } from '../framework/endpoint.js'
import { fail, type StoredRow } from '../framework/fields.js'
import type { Endpoint } from '../framework/operation.js'
import { viewOf } from '../framework/resource.js'
import { byName } from '../framework/resource-db.js'
import { createResourceStore, visibilityOf } from '../framework/store.js'
import { structure } from '../framework/structures.js'
import { shown, view } from '../framework/views.js'
import { courses } from './courses.resource.js'
import { lessons } from './lessons.resource.js'
import { sections } from './sections.resource.js'

const TREE = '/api/v1/courses/:course_id/curriculum'
const ORDER = '/api/v1/courses/:course_id/curriculum/order'

/** A section of the tree: the section as its resource shows it, with its lessons in order. */
const sectionWithLessons = view(
  { lessons: shown.list(shown.record('Lesson')) },
  { required: ['lessons'] },
)

/** The curriculum tree, as both endpoints answer it. */
const tree = view(
  {
    object: shown.constant('curriculum'),
    course_id: shown.string(),
    sections: shown.list(shown.record('Section', sectionWithLessons), {
      description: 'In order; in the public projection only the published sections and lessons',
    }),
  },
  { required: ['object', 'course_id', 'sections'] },
)

/** The curriculum of a course as one tree: its sections in order, each with its lessons. */
async function treeOf(
  deps: AppDeps,
  course: StoredRow,
  full: boolean,
): Promise<Record<string, unknown>> {
  const db = deps.database.db
  let sectionRows = db.selectFrom('sections').selectAll().where('course_id', '=', course.id)
  let lessonRows = db.selectFrom('lessons').selectAll().where('course_id', '=', course.id)
  if (!full) {
    sectionRows = sectionRows.where('status', '=', 'published')
    lessonRows = lessonRows.where('status', '=', 'published')
  }
  const [sectionList, lessonList] = await Promise.all([
    sectionRows.orderBy('position').orderBy('id').execute(),
    lessonRows.orderBy('position').orderBy('id').execute(),
  ])
  return tree.show({
    course_id: course.id,
    sections: sectionList.map((section) => ({
      ...viewOf(sections, section, full, deps),
      lessons: lessonList
        .filter((lesson) => lesson.section_id === section.id)
        .map((lesson) => viewOf(lessons, lesson, full, deps)),
    })),
  })
}

interface Order {
  readonly sections: ReadonlyArray<{ readonly id: string; readonly lessonIds: readonly string[] }>
}

/**
 * The new order: a list of sections, each `{ id, lesson_ids }`. Its shape is checked with the
 * body; that it names every section and lesson of the course exactly once, by `checkOrder`.
 */
const orderEntry = view(
  { id: shown.string(), lesson_ids: shown.list(shown.string()) },
  { required: ['id', 'lesson_ids'] },
)
const orderSections = structure(
  shown.list(orderEntry).schema,
  (value, path, errors) =>
    Array.isArray(value) ? value : fail(errors, path, 'type', `${path} must be a list`),
  { required: true },
)

/** The new order must name every section and every lesson of the course exactly once. */
function checkOrder(
  list: readonly unknown[],
  sectionIds: Set<string>,
  lessonIds: Set<string>,
): Order {
  const errors: FieldError[] = []
  const seenSections = new Set<string>()
  const seenLessons = new Set<string>()
  const order = list.map((entry, i) => {
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
  if (seenSections.size !== sectionIds.size || seenLessons.size !== lessonIds.size)
    errors.push({
      field: 'sections',
      code: 'incomplete',
      message: 'the order must list every section and every lesson of the course',
    })
  if (errors.length > 0) throw validationFailed(errors)
  return { sections: order }
}

/** The course named in the path (by id or slug); 404 when there is none or it is not public. */
async function courseOf(deps: AppDeps, key: string, full: boolean): Promise<StoredRow> {
  const store = createResourceStore(byName(deps.database.db), courses)
  const course = await store.findByKey(
    key,
    full ? undefined : visibilityOf(courses, 'get', deps.clock.now()),
  )
  if (!course) throw notFound(courses)
  return course
}

const treeSchema = tree.schema

const tags = ['sections', 'lessons']

/** The curriculum tree of a course, and reordering it in one request (DOMAIN.md §4.3.2). */
export const curriculumEndpoints: readonly Endpoint[] = [
  defineEndpoint({
    name: 'curriculum.get',
    method: 'GET',
    path: TREE,
    operationId: 'getCurriculum',
    summary:
      'The curriculum tree of a course: sections with their lessons (the public outline without curriculum:read)',
    tags,
    public: true,
    scope: sections.scopes.read,
    output: { description: 'The tree', schema: treeSchema },
    problems: {
      '401': 'Invalid token',
      '404': 'No such course, or not public',
      '429': 'Too many requests without a token from this address',
    },
    async run({ deps, caller, params }) {
      const full = readsFull(caller, sections, deps.config.issuer)
      const body = await treeOf(deps, await courseOf(deps, params.course_id ?? '', full), full)
      return jsonAnswer(body, {
        etag: true,
        headers: { 'data-visibility': full ? 'full' : 'public' },
      })
    },
  }),
  defineEndpoint({
    name: 'curriculum.reorder',
    method: 'PUT',
    path: ORDER,
    operationId: 'reorderCurriculum',
    summary: 'Reorder sections and lessons (and move lessons between sections) in one request',
    tags,
    scope: sections.scopes.write!,
    roles: sections.writeRoles,
    // The role rule before the body is read, as for every write.
    before: ({ deps, caller }) => void writerOf(caller, sections, deps),
    body: { sections: orderSections },
    output: { description: 'The reordered tree', schema: treeSchema },
    problems: {
      '400': 'Malformed body',
      '401': 'No token, or an invalid one',
      '403': 'The token lacks curriculum:write, or the role may not write',
      '404': 'No such course',
      '415': 'The body is not application/json',
      '422': 'The order does not list every section and lesson exactly once',
    },
    async run({ deps, caller, params, body, operation }) {
      const context = writerOf(caller, sections, deps)
      const course = await courseOf(deps, params.course_id ?? '', true)
      // Reordering changes every section and lesson of the course: its curriculum's owner rule.
      await requireOwner(sections, context, { course_id: course.id })
      const db = deps.database.db
      const courseId = course.id
      const [sectionRows, lessonRows] = await Promise.all([
        db.selectFrom('sections').select('id').where('course_id', '=', courseId).execute(),
        db.selectFrom('lessons').select('id').where('course_id', '=', courseId).execute(),
      ])
      const order = checkOrder(
        body.sections as unknown[],
        new Set(sectionRows.map((r) => r.id)),
        new Set(lessonRows.map((r) => r.id)),
      )
      await db.transaction().execute(async (trx) => {
        // Where each section and lesson is now, read in the change's transaction: only what
        // moves is written, and an order sent back as it is changes (and records) nothing.
        const [sectionsNow, lessonsNow] = await Promise.all([
          trx
            .selectFrom('sections')
            .select(['id', 'position'])
            .where('course_id', '=', courseId)
            .execute(),
          trx
            .selectFrom('lessons')
            .select(['id', 'section_id', 'position'])
            .where('course_id', '=', courseId)
            .execute(),
        ])
        const sectionAt = new Map(sectionsNow.map((r) => [r.id, Number(r.position)]))
        const lessonAt = new Map(
          lessonsNow.map((r) => [r.id, `${r.section_id} ${Number(r.position)}`]),
        )
        let moved = false
        for (const [i, section] of order.sections.entries()) {
          if (sectionAt.get(section.id) !== i) {
            moved = true
            await trx
              .updateTable('sections')
              .set({ position: i, updated_at: context.now })
              .where('id', '=', section.id)
              .execute()
          }
          for (const [j, lessonId] of section.lessonIds.entries()) {
            if (lessonAt.get(lessonId) === `${section.id} ${j}`) continue
            moved = true
            await trx
              .updateTable('lessons')
              .set({ section_id: section.id, position: j, updated_at: context.now })
              .where('id', '=', lessonId)
              .execute()
          }
        }
        // The new order is the course's curriculum, named, not copied.
        if (moved)
          await recordChange(
            { ...context, db: trx },
            {
              operation,
              recordType: courses.object,
              recordId: courseId,
              changes: [{ field: 'curriculum' }],
            },
          )
      })
      return jsonAnswer(await treeOf(deps, course, true), { etag: true })
    },
  }),
]
