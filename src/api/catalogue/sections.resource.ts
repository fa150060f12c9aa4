import { enumeration, html, integer, reference, text } from '../framework/fields.js'
import { placeAt } from '../framework/positions.js'
import { defineResource } from '../framework/resource.js'
import { object } from '../framework/structures.js'
import { curriculumOwnership } from '../people/owners.js'
import { courses } from './courses.resource.js'

/** Sections of a course's curriculum (DOMAIN.md §4.3.2), in `position` order. */
export const sections = defineResource({
  object: 'section',
  collection: 'sections',
  table: 'sections',
  idPrefix: 'sec',
  summary: 'Sections (chapters) of a course',
  scopes: { read: 'curriculum:read', write: 'curriculum:write' },
  writeRoles: ['owner', 'admin', 'editor', 'lecturer'],
  ownership: curriculumOwnership,
  operations: ['list', 'get', 'create', 'update', 'delete'],
  parent: { resource: () => courses, column: 'course_id' },
  public: { get: { status: ['published'] }, withParent: true },
  defaultSort: 'position',
  fields: {
    course_id: reference('crs', { public: true, readOnly: true, filter: true }),
    title: text({ public: true, required: true, max: 200, sortable: true, search: true }),
    description: html({ public: true, nullable: true, max: 20_000 }),
    position: integer({ public: true, sortable: true, max: 10_000 }),
    status: enumeration(['draft', 'published'], { filter: true, default: 'draft' }),
    drip: object(
      {
        type: enumeration(['none', 'days_after_enrollment', 'on_date'], { default: 'none' }),
        days: integer({ min: 1, max: 3650, nullable: true }),
        date: text({
          nullable: true,
          pattern: /^\d{4}-\d{2}-\d{2}$/,
          patternHint: 'a date YYYY-MM-DD',
        }),
      },
      { public: true, default: { type: 'none' } },
    ),
  },
  async beforeWrite(context, values, existing) {
    if (values.position === undefined && existing) return
    const courseId = (existing?.course_id ?? values.course_id)!
    const id = (existing?.id ?? values.id)!
    values.position = await placeAt(
      context.db,
      'sections',
      'course_id',
      courseId,
      id,
      values.position as number | undefined,
    )
  },
})
