import { signedFileUrl } from '../../storage/files/signing.js'
import type { Db } from '../../storage/schema.js'
import type { FieldError } from '../conventions.js'
import { conflict, validationFailed } from '../conventions.js'
import {
  enumeration,
  fail,
  html,
  instant,
  integer,
  type Row,
  text,
  url,
} from '../framework/fields.js'
import { money, moneyList } from '../framework/money.js'
import { defineResource } from '../framework/resource.js'
import type { ResourceDb } from '../framework/store.js'
import { structure } from '../framework/structures.js'
import { PerCurrency } from '../money/currencies.js'
import { DEFINITIONS } from '../money/definitions.js'
import { loadMoneyRecords, schoolCurrencies } from '../money/loading.js'
import { ALL_TIME, productFigures, productKey } from '../money/revenue.js'
import { isRedeemedStatus } from '../money/statuses.js'
import { schoolWide } from './owners.js'
import { schoolCurrency } from './school.js'
import { SLUG, uniqueSlug } from './slugs.js'

/** One downloadable file of a product, as stored (`files` JSON). */
interface ProductFile {
  file_id: string
  name: string
  content_type: string
  size: number
}

const MAX_FILES = 20
const FILE_ID = /^fil_[A-Za-z0-9_-]{1,64}$/

/**
 * The `files` list of a write: `[{file_id, name?}]`. The name defaults to the file's name;
 * content_type and size always come from the stored file (given ones are ignored).
 */
const productFiles = () =>
  structure(
    {
      type: 'array',
      maxItems: MAX_FILES,
      items: {
        type: 'object',
        properties: {
          // Required in a write, but the public projection of a file omits it: one schema
          // serves both, so the requirement is said in words.
          file_id: {
            type: 'string',
            description:
              'A file uploaded with purpose digital_product: required in a write; full view only in a read',
          },
          name: { type: 'string', maxLength: 200 },
          content_type: { type: 'string', readOnly: true },
          size: { type: 'integer', readOnly: true },
          download_url: {
            type: 'string',
            readOnly: true,
            description: 'Full view only: a signed link valid for about 15 minutes',
          },
        },
      },
    },
    (value, path, errors) => {
      if (!Array.isArray(value)) return fail(errors, path, 'type', `${path} must be a list`)
      if (value.length > MAX_FILES)
        return fail(errors, path, 'too_long', `${path} may hold at most ${MAX_FILES} files`)
      const seen = new Set<string>()
      const out: Array<{ file_id: string; name?: string }> = []
      for (const [i, item] of value.entries()) {
        const at = `${path}[${i}]`
        if (typeof item !== 'object' || item === null || Array.isArray(item)) {
          fail(errors, at, 'type', `${at} must be an object`)
          continue
        }
        const { file_id: id, name, ...rest } = item as Record<string, unknown>
        for (const key of Object.keys(rest))
          if (key !== 'content_type' && key !== 'size')
            fail(errors, `${at}.${key}`, 'unknown_field', `${at}.${key} is not a known field`)
        if (typeof id !== 'string' || !FILE_ID.test(id))
          fail(errors, `${at}.file_id`, 'format', `${at}.file_id must be a file id (fil_…)`)
        else if (seen.has(id))
          fail(errors, `${at}.file_id`, 'duplicate', `${at}.file_id is listed twice`)
        else if (
          name !== undefined &&
          (typeof name !== 'string' || !name.trim() || name.length > 200)
        )
          fail(errors, `${at}.name`, 'type', `${at}.name must be 1 to 200 characters`)
        else {
          seen.add(id)
          out.push({ file_id: id, ...(typeof name === 'string' && { name: name.trim() }) })
        }
      }
      return out
    },
    { public: true, default: [] },
  )

/**
 * Fills each listed file's content type and size (and name) from the `files` table; a file
 * that does not exist, or was not uploaded for digital products, is a 422 naming it.
 */
async function resolveFiles(db: ResourceDb, column: string): Promise<string> {
  const listed = JSON.parse(column) as Array<{ file_id: string; name?: string }>
  if (listed.length === 0) return column
  const rows = await db
    .selectFrom('files')
    .select(['id', 'filename', 'content_type', 'size', 'purpose'])
    .where(
      'id',
      'in',
      listed.map((f) => f.file_id),
    )
    .execute()
  const byId = new Map(rows.map((r) => [r.id as string, r]))
  const errors: FieldError[] = []
  const files: ProductFile[] = []
  listed.forEach((item, i) => {
    const file = byId.get(item.file_id)
    const field = `files[${i}].file_id`
    if (!file) errors.push({ field, code: 'not_found', message: 'no file with this id' })
    else if (file.purpose !== 'digital_product')
      errors.push({
        field,
        code: 'purpose',
        message: 'the file was not uploaded with purpose digital_product',
      })
    else
      files.push({
        file_id: item.file_id,
        name: item.name ?? (file.filename as string),
        content_type: file.content_type as string,
        size: Number(file.size),
      })
  })
  if (errors.length > 0) throw validationFailed(errors)
  return JSON.stringify(files)
}

/**
 * Sales and revenue per product, by the money rules (src/api/money): units on redeemed orders
 * (free claims of a lead magnet included), and net revenue of all time per currency.
 */
async function loadStats(db: ResourceDb, rows: Row[]): Promise<void> {
  const ids = rows.map((r) => r.id as string)
  const moneyDb = db as unknown as Db
  const [records, currencies] = await Promise.all([
    loadMoneyRecords(moneyDb, { productType: 'digital_product', productIds: ids }),
    schoolCurrencies(moneyDb),
  ])
  const products = productFigures(records, ALL_TIME, (l) => l.product_type === 'digital_product')
  const redeemed = new Set(
    records.orders.filter((o) => isRedeemedStatus(o.status)).map((o) => o.id),
  )
  for (const row of rows) {
    row.sales_count = records.lines
      .filter(
        (l) =>
          l.product_type === 'digital_product' &&
          l.product_id === row.id &&
          redeemed.has(l.order_id),
      )
      .reduce((n, l) => n + l.quantity, 0)
    const figures = products.get(productKey('digital_product', row.id as string))
    row.revenue = (figures?.net ?? new PerCurrency()).list(currencies)
  }
}

/**
 * The plans whose `includes.digital_product_ids` name each product (for the public, only the
 * plans it may see: active and visible on the pricing page).
 */
async function loadPlans(db: ResourceDb, rows: Row[], full: boolean): Promise<void> {
  let select = db
    .selectFrom('membership_plans')
    .select(['id', 'includes'])
    .where((eb) => eb.or(rows.map((r) => eb('includes', 'like', `%"${r.id as string}"%`))))
  if (!full) select = select.where('status', '=', 'active').where('visible', '=', 1)
  const plans = await select.orderBy('id').execute()
  for (const row of rows) {
    row.included_in_plan_ids = plans
      .filter((plan) => {
        const ids = (JSON.parse(plan.includes as string) as { digital_product_ids?: string[] })
          .digital_product_ids
        return Array.isArray(ids) && ids.includes(row.id as string)
      })
      .map((plan) => plan.id)
  }
}

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
    included_in_plan_ids: structure({ type: 'array', items: { type: 'string' } }, () => undefined, {
      public: true,
      readOnly: true,
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
    await loadPlans(db, rows, full)
    if (full) await loadStats(db, rows)
  },
  computed: (row, full, deps) => {
    const files = JSON.parse(row.files as string) as ProductFile[]
    const now = deps.clock.now()
    const shown = full
      ? files.map((f) => ({
          ...f,
          download_url: signedFileUrl(deps.config, f.file_id, f.name, now),
        }))
      : files.map(({ name, content_type, size }) => ({ name, content_type, size }))
    return {
      files: shown,
      included_in_plan_ids: row.included_in_plan_ids ?? [],
      ...(full && {
        sales_count: row.sales_count ?? 0,
        revenue: row.revenue ?? [],
      }),
    }
  },
  async beforeCreate(context, values) {
    values.slug ??= await uniqueSlug(context.db, 'digital_products', values.title as string)
  },
  async beforeWrite(context, values, existing) {
    const errors: FieldError[] = []
    if (typeof values.price === 'string') {
      const price = JSON.parse(values.price) as { amount: number; currency: string }
      values.price_amount = price.amount
      values.currency = price.currency
    }
    const currency = (values.currency ?? existing?.currency) as string
    const school = await schoolCurrency(context.db)
    if (currency !== school)
      errors.push({
        field: 'price.currency',
        code: 'currency',
        message: `prices are in the school currency, ${school}`,
      })
    const compare =
      values.compare_at_price !== undefined ? values.compare_at_price : existing?.compare_at_price
    if (typeof compare === 'string') {
      const { amount, currency: other } = JSON.parse(compare) as {
        amount: number
        currency: string
      }
      const priceAmount = (values.price_amount ?? existing?.price_amount) as number
      if (other !== currency)
        errors.push({
          field: 'compare_at_price.currency',
          code: 'currency',
          message: 'compare_at_price must be in the currency of price',
        })
      else if (amount <= priceAmount)
        errors.push({
          field: 'compare_at_price.amount',
          code: 'range',
          message: 'compare_at_price must be more than price',
        })
    }
    if (errors.length > 0) throw validationFailed(errors)
    if (typeof values.files === 'string')
      values.files = await resolveFiles(context.db, values.files)
  },
  async beforeDelete(context, row) {
    const sold = await context.db
      .selectFrom('order_items')
      .select('id')
      .where('product_type', '=', 'digital_product')
      .where('product_id', '=', row.id as string)
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
        if ((JSON.parse(row.files) as ProductFile[]).length === 0)
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
