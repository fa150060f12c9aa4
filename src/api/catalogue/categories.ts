import { conflict } from '../conventions.js'
import { html, integer, text } from '../framework/fields.js'
import { defineResource, type ResourceDefinition } from '../framework/resource.js'
import { SLUG, uniqueSlug } from '../framework/slugs.js'
import { schoolWide } from '../people/owners.js'

interface CategoryKind {
  readonly object: string
  readonly table: 'course_categories' | 'post_categories'
  readonly idPrefix: string
  readonly summary: string
  /** The resource whose scopes guard the categories, and whose records are filed under them. */
  readonly of: 'courses' | 'posts'
}

/**
 * A list of public categories, ordered by position, filing records of another resource in
 * their `category_id` (courses, blog posts). A category in use cannot be deleted.
 */
export function categories(kind: CategoryKind): ResourceDefinition {
  const { table, of } = kind
  return defineResource({
    object: kind.object,
    collection: table,
    table,
    idPrefix: kind.idPrefix,
    summary: kind.summary,
    scopes: { read: `${of}:read`, write: `${of}:write` },
    writeRoles: ['owner', 'admin', 'editor'],
    ownership: schoolWide(
      'Categories organise the whole school’s catalogue or blog; no person owns one',
    ),
    operations: ['list', 'get', 'create', 'update', 'delete'],
    public: { get: {} },
    slugField: 'slug',
    defaultSort: 'position',
    newLast: 'position',
    fields: {
      name: text({ public: true, required: true, max: 60, sortable: true, search: true }),
      slug: text({ public: true, max: 80, unique: true, ...SLUG }),
      description: html({ public: true, nullable: true, max: 5000 }),
      position: integer({ public: true, sortable: true, max: 10_000 }),
    },
    async beforeCreate(context, values) {
      values.slug ??= await uniqueSlug(context.db, table, values.name!)
    },
    async beforeDelete(context, row) {
      const used = await context.db
        .selectFrom(of)
        .select('id')
        .where('category_id', '=', row.id)
        .limit(1)
        .executeTakeFirst()
      if (used)
        throw conflict(`${of} are filed under this category; move them to another category first`)
    },
  })
}

/** Categories of the catalogue (DOMAIN.md §4.3.1). */
export const courseCategories = categories({
  object: 'course_category',
  table: 'course_categories',
  idPrefix: 'cat',
  summary: 'Categories of the course catalogue',
  of: 'courses',
})

/** Categories of the blog (DOMAIN.md §4.3.14). */
export const postCategories = categories({
  object: 'post_category',
  table: 'post_categories',
  idPrefix: 'pcat',
  summary: 'Categories of the blog',
  of: 'posts',
})
