import { sql } from 'kysely'
import type { Db } from '../../storage/schema.js'
import { conflict } from '../conventions.js'
import { boolean, enumeration, instant, integer, text } from '../framework/fields.js'
import { money, moneyList } from '../framework/money.js'
import { defineResource } from '../framework/resource.js'
import { DEFINITIONS } from '../money/definitions.js'
import { loadMoneyRecords, schoolCurrencies } from '../money/loading.js'
import type { MoneyOrder } from '../money/records.js'
import { netOfOrders } from '../money/revenue.js'
import { isRedeemedStatus } from '../money/statuses.js'
import { schoolWide } from '../people/owners.js'
import { COUPON_STATUSES, couponStatus, statusCondition } from './coupon-status.js'
import { appliesTo, checkCoupon, couponCode, discount, duration } from './coupon-terms.js'

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
    const ids = rows.map((r) => r.id)
    const moneyDb: Db = db
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
      .where('coupon_id', '=', row.id)
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
