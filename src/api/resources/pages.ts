import { conflict, type FieldError, validationFailed } from '../conventions.js'
import {
  boolean,
  enumeration,
  instant,
  type Row,
  sanitizeHtml,
  text,
  url,
} from '../framework/fields.js'
import { defineResource, type ResourceContext } from '../framework/resource.js'
import { object, structure } from '../framework/structures.js'
import { SLUG, uniqueSlug } from './slugs.js'

const BLOCK_TYPES = [
  'hero',
  'rich_text',
  'image',
  'video',
  'course_grid',
  'course_card',
  'pricing_table',
  'lecturer_grid',
  'testimonials',
  'faq',
  'cta',
  'form',
  'event_list',
  'html',
]

/** Strings named like HTML are sanitised wherever they sit in a block's props. */
function cleanProps(value: unknown, key = ''): unknown {
  if (typeof value === 'string') return /html|body/.test(key) ? sanitizeHtml(value) : value
  if (Array.isArray(value)) return value.map((v) => cleanProps(v))
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, cleanProps(v, k)]))
  return value
}

function checkBlocks(value: unknown, path: string, errors: FieldError[]): unknown {
  if (!Array.isArray(value) || value.length > 100) {
    errors.push({
      field: path,
      code: 'type',
      message: `${path} must be a list of at most 100 blocks`,
    })
    return undefined
  }
  return value.map((block, i) => {
    const at = `${path}[${i}]`
    const item = (typeof block === 'object' && block !== null ? block : {}) as Record<
      string,
      unknown
    >
    if (typeof item.type !== 'string' || !BLOCK_TYPES.includes(item.type))
      errors.push({
        field: `${at}.type`,
        code: 'enum',
        message: `type must be one of ${BLOCK_TYPES.join(', ')}`,
      })
    const props = item.props ?? {}
    if (typeof props !== 'object' || props === null || Array.isArray(props))
      errors.push({ field: `${at}.props`, code: 'type', message: 'props must be an object' })
    else if (JSON.stringify(props).length > 50_000)
      errors.push({
        field: `${at}.props`,
        code: 'too_long',
        message: 'props must be at most 50 KB',
      })
    for (const key of Object.keys(item))
      if (key !== 'type' && key !== 'props')
        errors.push({
          field: `${at}.${key}`,
          code: 'unknown_field',
          message: `${key} is not a block member`,
        })
    return { type: item.type, props: cleanProps(props) }
  })
}

async function update(context: ResourceContext, row: Row, changes: Row): Promise<string> {
  await context.db
    .updateTable('pages')
    .set({ ...changes, updated_at: context.now })
    .where('id', '=', row.id as string)
    .execute()
  return row.id as string
}

/** Site pages built from blocks (DOMAIN.md §4.3.19); one home page, never deleted. */
export const pages = defineResource({
  object: 'page',
  collection: 'pages',
  table: 'pages',
  idPrefix: 'pag',
  summary: 'Pages of the school’s site',
  scopes: { read: 'pages:read', write: 'pages:write' },
  writeRoles: ['owner', 'admin', 'editor'],
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
    blocks: structure(
      {
        type: 'array',
        maxItems: 100,
        items: {
          type: 'object',
          required: ['type'],
          additionalProperties: false,
          properties: { type: { enum: BLOCK_TYPES }, props: { type: 'object' } },
        },
      },
      checkBlocks,
      { public: true, required: true },
    ),
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
    values.slug ??= await uniqueSlug(context.db, 'pages', values.title as string)
  },
  async beforeWrite(context, values, existing) {
    if (values.type !== 'home') return
    let others = context.db.selectFrom('pages').select('id').where('type', '=', 'home')
    if (existing) others = others.where('id', '<>', existing.id as string)
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
  actions: [
    {
      name: 'publish',
      summary: 'Publish the page',
      run: (context, row) =>
        row.status === 'published'
          ? Promise.resolve(row.id as string)
          : update(context, row, { status: 'published', published_at: context.now }),
    },
    {
      name: 'unpublish',
      summary: 'Take the page back to draft',
      run: (context, row) => update(context, row, { status: 'draft' }),
    },
  ],
})
