import { conflict, validationFailed } from '../conventions.js'
import { boolean, enumeration, instant, text, url } from '../framework/fields.js'
import { defineResource } from '../framework/resource.js'
import { SLUG, uniqueSlug } from '../framework/slugs.js'
import { object, structure } from '../framework/structures.js'
import { schoolWide } from '../people/owners.js'
import { blocksSchema, checkBlocks } from './page-blocks.js'

/** Site pages built from blocks (DOMAIN.md §4.3.19); one home page, never deleted. */
export const pages = defineResource({
  object: 'page',
  collection: 'pages',
  table: 'pages',
  idPrefix: 'pag',
  summary: 'Pages of the school’s site',
  scopes: { read: 'pages:read', write: 'pages:write' },
  writeRoles: ['owner', 'admin', 'editor'],
  ownership: schoolWide('Pages make up the school’s site; no person owns one'),
  operations: ['list', 'get', 'create', 'update', 'delete'],
  public: { get: { status: ['published'] } },
  slugField: 'slug',
  fields: {
    title: text({ public: true, required: true, max: 200, sortable: true, search: true }),
    slug: text({ public: true, max: 80, unique: true, ...SLUG }),
    type: enumeration(['home', 'standard', 'landing', 'legal', 'thank_you'], {
      public: true,
      filter: true,
      default: 'standard',
    }),
    status: enumeration(['draft', 'published'], {
      readOnly: true,
      filter: true,
      default: 'draft',
      description: 'Changed by the publish and unpublish actions',
    }),
    blocks: structure(blocksSchema(), checkBlocks, {
      public: true,
      required: true,
      description: 'Each block’s props are declared per block type; others are refused.',
    }),
    seo: object(
      {
        title: text({ max: 70, nullable: true }),
        description: text({ max: 160, nullable: true }),
        image_url: url({ nullable: true }),
      },
      { public: true, nullable: true },
    ),
    show_in_navigation: boolean({ public: true, default: false }),
    published_at: instant({ public: true, readOnly: true, nullable: true }),
  },
  async beforeCreate(context, values) {
    values.slug ??= await uniqueSlug(context.db, 'pages', values.title!)
  },
  async beforeWrite(context, values, existing) {
    if (values.type !== 'home') return
    let others = context.db.selectFrom('pages').select('id').where('type', '=', 'home')
    if (existing) others = others.where('id', '<>', existing.id)
    if (await others.executeTakeFirst())
      throw validationFailed([
        { field: 'type', code: 'taken', message: 'the school already has a home page' },
      ])
  },
  async beforeDelete(_context, row) {
    if (row.type === 'home')
      throw conflict(
        'the home page cannot be deleted; edit it or make another page the home page first',
      )
  },
  lifecycle: {
    publish: { summary: 'Publish the page', to: 'published', stamp: 'published_at' },
    unpublish: { summary: 'Take the page back to draft', to: 'draft' },
  },
})
