import { conflict, validationFailed } from '../conventions.js'
import { enumeration, html, instant, integer, text, url } from '../framework/fields.js'
import { money, moneyList } from '../framework/money.js'
import { defineResource } from '../framework/resource.js'
import { SLUG, uniqueSlug } from '../framework/slugs.js'
import { derived } from '../framework/structures.js'
import { shown } from '../framework/views.js'
import { DEFINITIONS } from '../money/definitions.js'
import { schoolWide } from '../people/owners.js'
import { loadIncludingPlans, loadProductStats } from './product-figures.js'
import { filesView, productFiles, resolveFiles } from './product-files.js'
import { checkProductPrice } from './product-price.js'

/**
 * Digital products (DOMAIN.md §4.3.15): downloads sold or given away (price 0, a lead
 * magnet), with files from storage. The public sees published products (unlisted ones by id
 * or slug) and of their files only names, types and sizes; callers with
 * digital_products:read also get each file's id and a short-lived signed download link.
 */
export const digitalProducts = defineResource({
  object: 'digital_product',
  collection: 'digital_products',
  table: 'digital_products',
  idPrefix: 'dpr',
  summary: 'Downloadable products (presets, guides, templates) with files from storage',
  scopes: { read: 'digital_products:read', write: 'digital_products:write' },
  writeRoles: ['owner', 'admin', 'editor'],
  ownership: schoolWide('Digital products are the school’s catalogue; no person owns one'),
  operations: ['list', 'get', 'create', 'update', 'delete'],
  public: {
    get: { status: ['published'], visibility: ['public', 'unlisted'] },
    list: { status: ['published'], visibility: ['public'] },
  },
  slugField: 'slug',
  fields: {
    title: text({ public: true, required: true, max: 200, sortable: true, search: true }),
    slug: text({ public: true, max: 80, unique: true, ...SLUG }),
    description: html({ public: true, nullable: true }),
    cover_image_url: url({ public: true, nullable: true }),
    status: enumeration(['draft', 'published', 'archived'], {
      readOnly: true,
      filter: true,
      default: 'draft',
      description: 'Changed by the publish and archive actions',
    }),
    visibility: enumeration(['public', 'unlisted'], {
      public: true,
      filter: true,
      default: 'public',
    }),
    price: money({
      public: true,
      required: true,
      description: 'Amount 0 makes a free download (a lead magnet)',
    }),
    compare_at_price: money({ public: true, nullable: true }),
    files: productFiles(),
    download_limit: integer({
      public: true,
      min: 1,
      max: 1000,
      nullable: true,
      description: 'Downloads per buyer; null: unlimited',
    }),
    access_days: integer({
      public: true,
      min: 1,
      max: 3650,
      nullable: true,
      description: 'Days a buyer may download after purchase; null: forever',
    }),
    license_text: text({ public: true, max: 5000, nullable: true }),
    published_at: instant({ public: true, readOnly: true, nullable: true, filter: true }),
    included_in_plan_ids: derived(shown.list(shown.string()), {
      public: true,
      description:
        'Membership plans whose `includes.digital_product_ids` name the product (for the public: active plans on the pricing page)',
    }),
    sales_count: integer({
      readOnly: true,
      description:
        'Full view only: units sold on orders that redeemed them, all time (paid, partially_refunded, refunded or free; free claims of a lead magnet included)',
    }),
    revenue: moneyList(`Full view only. ${DEFINITIONS.digitalRevenue}`),
  },
  async enrich(db, rows, full) {
    await loadIncludingPlans(db, rows, full)
    if (full) await loadProductStats(db, rows)
  },
  computed: (row, full, deps) => ({
    files: filesView(row.files, full, deps, deps.clock.now()),
    included_in_plan_ids: row.included_in_plan_ids ?? [],
    ...(full && { sales_count: row.sales_count ?? 0, revenue: row.revenue ?? [] }),
  }),
  async beforeCreate(context, values) {
    values.slug ??= await uniqueSlug(context.db, 'digital_products', values.title!)
  },
  async beforeWrite(context, values, existing) {
    await checkProductPrice(context.db, values, existing)
    if (typeof values.files === 'string')
      values.files = await resolveFiles(context.db, values.files)
  },
  async beforeDelete(context, row) {
    const sold = await context.db
      .selectFrom('order_items')
      .select('id')
      .where('product_type', '=', 'digital_product')
      .where('product_id', '=', row.id)
      .limit(1)
      .executeTakeFirst()
    if (sold)
      throw conflict(
        'a digital product that appears in orders cannot be deleted; archive it instead (POST …/archive)',
      )
  },
  lifecycle: {
    publish: {
      summary: 'Publish the product (it needs at least one file)',
      to: 'published',
      stampOnce: 'published_at',
      check(_context, row) {
        if ((JSON.parse(row.files) as unknown[]).length === 0)
          throw validationFailed([
            {
              field: 'files',
              code: 'required',
              message: 'a digital product needs at least one file to be published',
            },
          ])
      },
    },
    archive: {
      summary: 'Archive: no longer sold; buyers keep their downloads',
      to: 'archived',
    },
  },
})
