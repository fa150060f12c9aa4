import {
  boolean,
  enumeration,
  html,
  instant,
  type Row,
  reference,
  stringList,
  text,
  url,
} from '../framework/fields.js'
import { requireReference } from '../framework/references.js'
import { defineResource, type ResourceContext } from '../framework/resource.js'
import { SLUG, uniqueSlug } from '../framework/slugs.js'
import { object } from '../framework/structures.js'
import { schoolWide } from '../people/owners.js'

async function update(
  context: ResourceContext,
  row: { readonly id: string },
  changes: Row,
): Promise<string> {
  await context.db
    .updateTable('posts')
    .set({ ...changes, updated_at: context.now })
    .where('id', '=', row.id)
    .execute()
  return row.id
}

/** A scheduled post whose time has come reads as published. */
function statusOf(row: Row, now: number): unknown {
  return row.status === 'scheduled' && (row.published_at as number) <= now
    ? 'published'
    : row.status
}

/**
 * Blog posts (DOMAIN.md §4.3.14). The public sees published posts (scheduled ones once their
 * time has come); the body only of posts with `access: public`, others as a locked teaser.
 */
export const posts = defineResource({
  object: 'post',
  collection: 'posts',
  table: 'posts',
  idPrefix: 'pst',
  summary: 'Blog posts',
  scopes: { read: 'posts:read', write: 'posts:write' },
  writeRoles: ['owner', 'admin', 'editor'],
  ownership: schoolWide(
    'The blog is the school’s; its author is shown, but editors edit every post',
  ),
  operations: ['list', 'get', 'create', 'update', 'delete'],
  public: { get: { status: ['published', 'scheduled'] }, since: 'published_at' },
  slugField: 'slug',
  fields: {
    title: text({ public: true, required: true, max: 200, sortable: true, search: true }),
    slug: text({ public: true, max: 80, unique: true, ...SLUG }),
    subtitle: text({ public: true, max: 300, nullable: true }),
    excerpt: text({ public: true, max: 500, nullable: true, search: true }),
    body: html({ required: true, description: 'Public only when access is public.' }),
    cover_image_url: url({ public: true, nullable: true }),
    status: enumeration(['draft', 'scheduled', 'published', 'archived'], {
      readOnly: true,
      filter: true,
      default: 'draft',
      description: 'Changed by the publish, unpublish and archive actions',
    }),
    access: enumeration(['public', 'registered', 'paid'], {
      public: true,
      filter: true,
      default: 'public',
    }),
    category_id: reference('pcat', { public: true, nullable: true, filter: true }),
    tags: stringList({ public: true, default: [] }),
    author_lecturer_id: reference('lec', { public: true, nullable: true, filter: true }),
    seo: object(
      {
        title: text({ max: 70, nullable: true }),
        description: text({ max: 160, nullable: true }),
        image_url: url({ nullable: true }),
      },
      { public: true, nullable: true },
    ),
    comments_enabled: boolean({ public: true, default: true }),
    published_at: instant({ public: true, readOnly: true, nullable: true, filter: true }),
    locked: boolean({
      public: true,
      readOnly: true,
      description:
        'The body is withheld: true in the public projection of a post for registered or paying readers (then without `body`); false otherwise',
    }),
  },
  computed: (row, full, deps) => {
    const now = deps.clock.now()
    if (full) return { status: statusOf(row, now), locked: false }
    return row.access === 'public' ? { body: row.body, locked: false } : { locked: true }
  },
  async beforeCreate(context, values) {
    values.slug ??= await uniqueSlug(context.db, 'posts', values.title!)
  },
  async beforeWrite(context, values) {
    if (typeof values.author_lecturer_id === 'string')
      await requireReference(
        context.db,
        'lecturers',
        values.author_lecturer_id,
        'author_lecturer_id',
        'lecturer',
      )
    if (typeof values.category_id === 'string')
      await requireReference(
        context.db,
        'post_categories',
        values.category_id,
        'category_id',
        'post category',
      )
  },
  actions: [
    {
      name: 'publish',
      summary: 'Publish now, or schedule with `at` (a future time)',
      input: { at: instant() },
      async run(context, row, input) {
        const at = typeof input.at === 'number' ? input.at : undefined
        if (at !== undefined && at > context.now)
          return update(context, row, { status: 'scheduled', published_at: at })
        if (row.status === 'published') return row.id
        return update(context, row, { status: 'published', published_at: context.now })
      },
    },
    {
      name: 'unpublish',
      summary: 'Back to draft (also cancels a schedule)',
      run: (context, row) => update(context, row, { status: 'draft', published_at: null }),
    },
    {
      name: 'archive',
      summary: 'Archive: hidden from the blog, kept for the record',
      run: (context, row) => update(context, row, { status: 'archived' }),
    },
  ],
})
