import { sql } from 'kysely'
import type { Db } from '../../storage/schema.js'
import { conflict, type FieldError, validationFailed } from '../conventions.js'
import {
  boolean,
  enumeration,
  type Field,
  fail,
  instant,
  integer,
  type Row,
  text,
} from '../framework/fields.js'
import { money, moneyList } from '../framework/money.js'
import { defineResource, type ResourceContext } from '../framework/resource.js'
import type { ResourceDb } from '../framework/store.js'
import { checkMembers, membersSchema, structure } from '../framework/structures.js'
import { DEFINITIONS } from '../money/definitions.js'
import { loadMoneyRecords, schoolCurrencies } from '../money/loading.js'
import type { MoneyOrder } from '../money/records.js'
import { netOfOrders } from '../money/revenue.js'
import { isRedeemedStatus, REDEEMED_STATUSES } from '../money/statuses.js'
import { schoolWide } from './owners.js'
import { schoolCurrency } from './school.js'

export const COUPON_STATUSES = ['scheduled', 'active', 'expired', 'exhausted', 'disabled'] as const
export type CouponStatus = (typeof COUPON_STATUSES)[number]

/** What a coupon may be restricted to, and the table each kind lives in. */
const PRODUCT_TABLES = {
  course: 'courses',
  membership_plan: 'membership_plans',
  digital_product: 'digital_products',
  event: 'events',
} as const
type ProductType = keyof typeof PRODUCT_TABLES

/** A coupon code: typed in any case, stored upper-case (unique case-insensitively). */
function couponCode(): Field {
  const inner = text({
    required: true,
    unique: true,
    sortable: true,
    search: true,
    max: 32,
    min: 3,
    pattern: /^[A-Za-z0-9_-]{3,32}$/,
    patternHint: '3 to 32 letters, digits, - or _',
    description: 'Stored upper-case; unique whatever the case',
  })
  return {
    ...inner,
    parse(value, path, errors) {
      const parsed = inner.parse(value, path, errors)
      return typeof parsed === 'string' ? parsed.toUpperCase() : parsed
    },
    parseQuery: (raw) => raw.toUpperCase(),
  }
}

const discountMembers = {
  type: enumeration(['percent', 'fixed_amount'], { required: true }),
  percent_off: integer({ min: 1, max: 100, description: 'With type percent' }),
  amount_off: money({ description: 'With type fixed_amount, in the school currency' }),
}

interface Discount {
  type: 'percent' | 'fixed_amount'
  percent_off?: number
  amount_off?: { amount: number; currency: string }
}

/** `{type, percent_off}` or `{type, amount_off}`: exactly the member its type needs. */
const discount = structure(
  membersSchema(discountMembers),
  (value, path, errors) => {
    const before = errors.length
    const parsed = checkMembers(discountMembers, value, path, errors) as Discount | undefined
    if (!parsed || errors.length > before) return undefined
    const [wanted, other] =
      parsed.type === 'percent' ? ['percent_off', 'amount_off'] : ['amount_off', 'percent_off']
    if (parsed[wanted as keyof Discount] === undefined)
      return fail(
        errors,
        `${path}.${wanted}`,
        'required',
        `a ${parsed.type} discount needs ${wanted}`,
      )
    if (parsed[other as keyof Discount] !== undefined)
      return fail(
        errors,
        `${path}.${other}`,
        'not_allowed',
        `a ${parsed.type} discount has no ${other}`,
      )
    if (parsed.amount_off && parsed.amount_off.amount < 1)
      return fail(errors, `${path}.amount_off.amount`, 'range', 'amount_off must be at least 1')
    return parsed.type === 'percent'
      ? { type: 'percent', percent_off: parsed.percent_off }
      : { type: 'fixed_amount', amount_off: parsed.amount_off }
  },
  { required: true, description: 'Percent off (1–100) or a fixed amount off' },
)

const productMembers = {
  type: enumeration(Object.keys(PRODUCT_TABLES), { required: true }),
  id: text({ required: true, max: 64, pattern: /^[a-z]+_[A-Za-z0-9_-]+$/, patternHint: 'an id' }),
}

const appliesToMembers = {
  type: enumeration(['all', 'products'], { required: true }),
  products: structure(
    { type: 'array', maxItems: 100, items: membersSchema(productMembers) },
    (list, path, errors) => {
      if (!Array.isArray(list)) return fail(errors, path, 'type', `${path} must be a list`)
      if (list.length > 100)
        return fail(errors, path, 'too_long', `${path} may hold at most 100 products`)
      return list.map((item, i) => checkMembers(productMembers, item, `${path}[${i}]`, errors))
    },
  ),
}

/** `{type: all}` or `{type: products, products: [{type, id}]}` (at least one, at most 100). */
const appliesTo = structure(
  membersSchema(appliesToMembers),
  (value, path, errors) => {
    const before = errors.length
    const parsed = checkMembers(appliesToMembers, value, path, errors)
    if (!parsed || errors.length > before) return undefined
    const products = (parsed.products as { type: string; id: string }[] | undefined) ?? []
    if (parsed.type === 'all' && products.length > 0)
      return fail(errors, `${path}.products`, 'not_allowed', 'a coupon for all products lists none')
    if (parsed.type === 'products' && products.length === 0)
      return fail(errors, `${path}.products`, 'required', 'name at least one product')
    const unique = [...new Map(products.map((p) => [`${p.type} ${p.id}`, p])).values()]
    return { type: parsed.type, products: unique.map((p) => ({ type: p.type, id: p.id })) }
  },
  { default: { type: 'all', products: [] }, description: 'Every product, or only those listed' },
)

const durationMembers = {
  type: enumeration(['once', 'forever', 'repeating'], { required: true }),
  months: integer({ min: 1, max: 36, description: 'With type repeating' }),
}

/** How long a discount lasts on a recurring plan: once, forever, or for `months`. */
const duration = structure(
  membersSchema(durationMembers),
  (value, path, errors) => {
    const before = errors.length
    const parsed = checkMembers(durationMembers, value, path, errors)
    if (!parsed || errors.length > before) return undefined
    if (parsed.type === 'repeating' && parsed.months === undefined)
      return fail(errors, `${path}.months`, 'required', 'a repeating duration needs months')
    if (parsed.type !== 'repeating' && parsed.months !== undefined)
      return fail(errors, `${path}.months`, 'not_allowed', 'months is only for repeating')
    return parsed.type === 'repeating' ? { type: 'repeating', months: parsed.months } : parsed
  },
  { default: { type: 'once' }, description: 'For recurring plans: how many charges it reduces' },
)

/** Orders that redeemed the coupon (free ones included), as a scalar subquery. */
const redemptions = sql<number>`(select count(*) from orders where orders.coupon_id = coupons.id and orders.status in (${sql.join(REDEEMED_STATUSES)}))`

/** The derived status of each coupon, in SQL (the list filter), first matching wins. */
function statusCondition(status: string, now: number) {
  const scheduled = sql`(starts_at is not null and starts_at > ${now})`
  const expired = sql`(expires_at is not null and expires_at <= ${now})`
  const exhausted = sql`(max_redemptions is not null and ${redemptions} >= max_redemptions)`
  switch (status) {
    case 'disabled':
      return sql<boolean>`enabled = 0`
    case 'scheduled':
      return sql<boolean>`enabled = 1 and ${scheduled}`
    case 'expired':
      return sql<boolean>`enabled = 1 and not ${scheduled} and ${expired}`
    case 'exhausted':
      return sql<boolean>`enabled = 1 and not ${scheduled} and not ${expired} and ${exhausted}`
    default:
      return sql<boolean>`enabled = 1 and not ${scheduled} and not ${expired} and not ${exhausted}`
  }
}

/** The same derivation for one row (its `times_redeemed` loaded by enrich). */
export function couponStatus(row: Row, now: number): CouponStatus {
  const num = (v: unknown) => (v === null || v === undefined ? null : Number(v))
  const startsAt = num(row.starts_at)
  const expiresAt = num(row.expires_at)
  const max = num(row.max_redemptions)
  if (!Number(row.enabled)) return 'disabled'
  if (startsAt !== null && startsAt > now) return 'scheduled'
  if (expiresAt !== null && expiresAt <= now) return 'expired'
  if (max !== null && Number(row.times_redeemed ?? 0) >= max) return 'exhausted'
  return 'active'
}

async function timesRedeemed(db: ResourceDb, couponId: string): Promise<number> {
  const row = await db
    .selectFrom('orders')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('coupon_id', '=', couponId)
    .where('status', 'in', [...REDEEMED_STATUSES])
    .executeTakeFirst()
  return Number(row?.n ?? 0)
}

const parsedOf = (value: unknown) => (typeof value === 'string' ? JSON.parse(value) : value)

function sameDiscount(a: unknown, b: unknown): boolean {
  const x = parsedOf(a) as Discount
  const y = parsedOf(b) as Discount
  return (
    x.type === y.type &&
    (x.percent_off ?? null) === (y.percent_off ?? null) &&
    (x.amount_off?.amount ?? null) === (y.amount_off?.amount ?? null) &&
    (x.amount_off?.currency ?? null) === (y.amount_off?.currency ?? null)
  )
}

/** Amounts in the school currency; restricted products must exist; the window must be open. */
async function checkCoupon(context: ResourceContext, values: Row, existing?: Row): Promise<void> {
  const { db } = context
  const errors: FieldError[] = []
  const currency = await schoolCurrency(db)
  const disc = values.discount !== undefined ? (parsedOf(values.discount) as Discount) : undefined
  if (disc?.amount_off && disc.amount_off.currency !== currency)
    errors.push({
      field: 'discount.amount_off.currency',
      code: 'currency',
      message: `amount_off must be in the school currency, ${currency}`,
    })
  const minimum = parsedOf(values.min_order_amount ?? null) as { currency: string } | null
  if (minimum && minimum.currency !== currency)
    errors.push({
      field: 'min_order_amount.currency',
      code: 'currency',
      message: `min_order_amount must be in the school currency, ${currency}`,
    })
  if (typeof values.applies_to === 'string') {
    const { products } = JSON.parse(values.applies_to) as {
      products: { type: ProductType; id: string }[]
    }
    for (const [i, product] of products.entries()) {
      const found = await db
        .selectFrom(PRODUCT_TABLES[product.type])
        .select('id')
        .where('id', '=', product.id)
        .executeTakeFirst()
      if (!found)
        errors.push({
          field: `applies_to.products[${i}].id`,
          code: 'not_found',
          message: `no ${product.type.replace('_', ' ')} with this id`,
        })
    }
  }
  const pick = (name: string) => (name in values ? values[name] : existing?.[name]) ?? null
  const startsAt = pick('starts_at')
  const expiresAt = pick('expires_at')
  if (startsAt !== null && expiresAt !== null && Number(expiresAt) <= Number(startsAt))
    errors.push({
      field: 'expires_at',
      code: 'range',
      message: 'expires_at must be after starts_at',
    })
  if (errors.length > 0) throw validationFailed(errors)

  if (!existing) return
  const changed: FieldError[] = []
  if (values.code !== undefined && values.code !== existing.code)
    changed.push({ field: 'code', code: 'frozen', message: 'code cannot change once redeemed' })
  if (values.discount !== undefined && !sameDiscount(values.discount, existing.discount))
    changed.push({
      field: 'discount',
      code: 'frozen',
      message: 'discount (and its currency) cannot change once redeemed',
    })
  if (changed.length > 0 && (await timesRedeemed(db, existing.id as string)) > 0)
    throw conflict(
      `the coupon has been redeemed, so its ${changed.map((e) => e.field).join(' and ')} can no longer change; create a new coupon (and disable this one) instead`,
      changed,
    )
}

/**
 * Coupons (DOMAIN.md §4.3.13). No public projection: codes are secrets. `status`,
 * `times_redeemed` and `revenue_attributed` are derived from the coupon's window and its
 * orders; code and discount freeze at the first redemption.
 */
export const coupons = defineResource({
  object: 'coupon',
  collection: 'coupons',
  table: 'coupons',
  idPrefix: 'cpn',
  summary: 'Discount codes with limits, a validity window and product restrictions',
  scopes: { read: 'coupons:read', write: 'coupons:write' },
  writeRoles: ['owner', 'admin', 'editor'],
  ownership: schoolWide('Coupons are the school’s pricing decisions; no person owns one'),
  operations: ['list', 'get', 'create', 'update', 'delete'],
  fields: {
    code: couponCode(),
    name: text({ nullable: true, max: 120, search: true, description: 'Internal' }),
    description: text({ nullable: true, max: 2000, description: 'Internal' }),
    discount,
    applies_to: appliesTo,
    duration,
    max_redemptions: integer({
      nullable: true,
      min: 1,
      description: 'Null: unlimited',
    }),
    max_redemptions_per_customer: integer({ nullable: true, min: 1 }),
    min_order_amount: money({ nullable: true }),
    starts_at: instant({ nullable: true, filter: true }),
    expires_at: instant({ nullable: true, filter: true }),
    enabled: boolean({ default: true, filter: true, description: 'The manual kill switch' }),
    status: enumeration(COUPON_STATUSES, {
      readOnly: true,
      description: 'Derived: disabled, scheduled, expired, exhausted or active (first match)',
    }),
    times_redeemed: integer({
      readOnly: true,
      description: 'Orders with this coupon that are paid, (partially) refunded or free',
    }),
    revenue_attributed: moneyList(DEFINITIONS.couponRevenue),
  },
  filters: {
    status: {
      field: enumeration(COUPON_STATUSES),
      reads: ['enabled', 'starts_at', 'expires_at', 'max_redemptions', 'times_redeemed'],
      where: (_eb, _op, value, now) => statusCondition(String(value), now),
      description: 'The derived status',
    },
    code: {
      field: couponCode(),
      reads: ['code'],
      where: (eb, _op, value) => eb('code', '=', String(value)),
      description: 'Exact code, any case',
    },
    applies_to_product_id: {
      field: text({ max: 64, pattern: /^[a-z]+_[A-Za-z0-9_-]+$/ }),
      reads: ['applies_to'],
      where: (_eb, _op, value) => {
        const id = String(value).replace(/[\\%_]/g, (c) => `\\${c}`)
        return sql<boolean>`(applies_to like ${'{"type":"all"%'} or applies_to like ${`%"id":"${id}"%`} escape '\\')`
      },
      description: 'Coupons usable on this product: those for all products and those listing it',
    },
  },
  async enrich(db, rows) {
    const ids = rows.map((r) => r.id as string)
    const moneyDb = db as unknown as Db
    const [records, currencies] = await Promise.all([
      loadMoneyRecords(moneyDb, { couponIds: ids }),
      schoolCurrencies(moneyDb),
    ])
    for (const row of rows) {
      const own = (order: MoneyOrder) => order.coupon_id === row.id
      row.times_redeemed = records.orders.filter((o) => own(o) && isRedeemedStatus(o.status)).length
      row.revenue_attributed = netOfOrders(records, own).list(currencies)
    }
  },
  computed: (row, _full, deps) => ({
    status: couponStatus(row, deps.clock.now()),
    times_redeemed: Number(row.times_redeemed ?? 0),
    revenue_attributed: row.revenue_attributed ?? [],
  }),
  beforeWrite: (context, values, existing) => checkCoupon(context, values, existing),
  async beforeDelete(context, row) {
    // Any order naming the coupon keeps it, redeemed or not yet (a pending checkout).
    const used = await context.db
      .selectFrom('orders')
      .select('id')
      .where('coupon_id', '=', row.id as string)
      .limit(1)
      .executeTakeFirst()
    if (used)
      throw conflict(
        'a coupon that orders refer to cannot be deleted; disable it instead (POST …/disable)',
      )
  },
  lifecycle: {
    enable: {
      summary: 'Turn the coupon back on (its window and limits still apply)',
      column: 'enabled',
      to: 1,
    },
    disable: {
      summary: 'Turn the coupon off: checkout refuses it from now on',
      column: 'enabled',
      to: 0,
    },
  },
})
