import { validationFailed } from '../conventions.js'
import { boolean, email, html, integer, reference, text, url } from '../framework/fields.js'
import { defineResource } from '../framework/resource.js'
import { SLUG, uniqueSlug } from '../framework/slugs.js'
import { object } from '../framework/structures.js'

const link = () => url({ nullable: true })

/** Public instructor profiles (DOMAIN.md §4.3.5), optionally linked to a team member. */
export const lecturers = defineResource({
  object: 'lecturer',
  collection: 'lecturers',
  table: 'lecturers',
  idPrefix: 'lec',
  summary: 'Instructor profiles',
  scopes: { read: 'lecturers:read', write: 'lecturers:write' },
  writeRoles: ['owner', 'admin', 'editor', 'lecturer'],
  ownership: {
    kind: 'person',
    limited: ['lecturer'],
    rule: 'a lecturer changes only the lecturer profile linked to them (member_id)',
    claim(context, values) {
      // A lecturer's new profile is their own unless they name someone else (then refused).
      if (context.caller.user.role === 'lecturer') values.member_id ??= context.caller.user.id
    },
    owns: async (context, row) => row.member_id === context.caller.user.id,
  },
  operations: ['list', 'get', 'create', 'update', 'delete'],
  public: { get: { visible: [1] } },
  slugField: 'slug',
  defaultSort: 'position',
  fields: {
    name: text({ public: true, required: true, max: 120, sortable: true, search: true }),
    slug: text({ public: true, max: 80, unique: true, ...SLUG }),
    headline: text({ public: true, max: 200, nullable: true, search: true }),
    bio: html({ public: true, nullable: true, max: 20_000 }),
    avatar_url: url({ public: true, nullable: true }),
    links: object(
      { website: link(), x: link(), linkedin: link(), youtube: link(), instagram: link() },
      { public: true, nullable: true },
    ),
    visible: boolean({ filter: true, default: true }),
    featured: boolean({ public: true, filter: true, default: false }),
    position: integer({ public: true, sortable: true, max: 10_000, default: 0 }),
    email: email({ nullable: true }),
    member_id: reference('usr', { nullable: true, filter: true }),
  },
  async beforeCreate(context, values) {
    values.slug ??= await uniqueSlug(context.db, 'lecturers', values.name!)
  },
  async beforeWrite(context, values) {
    if (typeof values.member_id !== 'string') return
    const member = await context.db
      .selectFrom('users')
      .select('role')
      .where('id', '=', values.member_id)
      .executeTakeFirst()
    if (!member || member.role === 'student')
      throw validationFailed([
        { field: 'member_id', code: 'not_found', message: 'no team member with this id' },
      ])
  },
})
