import { ProblemError } from '../../http/problem.js'
import { html, integer, text } from '../framework/fields.js'
import { defineResource } from '../framework/resource.js'
import { SLUG, uniqueSlug } from './slugs.js'

/** Categories of the catalogue (DOMAIN.md §4.3.1), public, under the courses scopes. */
export const courseCategories = defineResource({
  object: 'course_category',
  collection: 'course_categories',
  table: 'course_categories',
  idPrefix: 'cat',
  summary: 'Categories of the course catalogue',
  scopes: { read: 'courses:read', write: 'courses:write' },
  writeRoles: ['owner', 'admin', 'editor'],
  operations: ['list', 'get', 'create', 'update', 'delete'],
  public: { get: {} },
  slugField: 'slug',
  defaultSort: 'position',
  fields: {
    name: text({ public: true, required: true, max: 60, sortable: true, search: true }),
    slug: text({ public: true, max: 80, unique: true, ...SLUG }),
    description: html({ public: true, nullable: true, max: 5000 }),
    position: integer({ public: true, sortable: true, max: 10_000 }),
  },
  async beforeCreate(context, values) {
    values.slug ??= await uniqueSlug(context.db, 'course_categories', values.name as string)
    if (values.position === undefined) {
      const last = await context.db
        .selectFrom('course_categories')
        .select((eb) => eb.fn.max('position').as('max'))
        .executeTakeFirst()
      values.position = Number(last?.max ?? -1) + 1
    }
  },
  async beforeDelete(context, row) {
    const used = await context.db
      .selectFrom('courses')
      .select('id')
      .where('category_id', '=', row.id as string)
      .limit(1)
      .executeTakeFirst()
    if (used)
      throw new ProblemError(409, {
        code: 'conflict',
        title: 'Conflict',
        detail: 'courses are filed under this category; move them to another category first',
      })
  },
})
