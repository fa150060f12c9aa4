/**
 * Reads the records money is counted from. Every screen loads through here, so every screen
 * counts the same rows: orders (all statuses; revenue.ts decides which count), all lines of
 * those orders, and the refunds of those orders.
 */
import { SCHOOL_ID } from '../../people/first-start.js'
import type { Db } from '../../storage/schema.js'
import type { OrderProductType } from '../../storage/tables/commerce.js'
import { currencyOrder } from './currencies.js'
import type { MoneyLine, MoneyOrder, MoneyRecords, MoneyRefund } from './records.js'
import type { MoneySubscription } from './subscriptions.js'

/** Which orders to read. */
export type OrderScope =
  /** Orders paid between lo and hi, and the orders of refunds created between them. */
  | { readonly paidOrRefundedBetween: { readonly lo: number; readonly hi: number } }
  /** Orders with a line of one of these products (of this type). */
  | { readonly productType: OrderProductType; readonly productIds: readonly string[] }
  /** Orders that used one of these coupons. */
  | { readonly couponIds: readonly string[] }

const CHUNK = 500
async function chunked<T>(ids: readonly string[], read: (chunk: string[]) => Promise<T[]>) {
  const out: T[] = []
  // Chunks keep an IN list well under either engine's parameter limit.
  for (let i = 0; i < ids.length; i += CHUNK) out.push(...(await read(ids.slice(i, i + CHUNK))))
  return out
}

const orderColumns = [
  'id',
  'status',
  'currency',
  'total',
  'tax_total',
  'paid_at',
  'coupon_id',
  'student_id',
  'customer_email',
] as const

/** The ids of the orders a scope names. */
async function orderIds(db: Db, scope: OrderScope): Promise<string[]> {
  if ('couponIds' in scope) {
    if (scope.couponIds.length === 0) return []
    const rows = await db
      .selectFrom('orders')
      .select('id')
      .where('coupon_id', 'in', [...scope.couponIds])
      .execute()
    return rows.map((r) => r.id)
  }
  if ('productIds' in scope) {
    if (scope.productIds.length === 0) return []
    const rows = await db
      .selectFrom('order_items')
      .select('order_id')
      .distinct()
      .where('product_type', '=', scope.productType)
      .where('product_id', 'in', [...scope.productIds])
      .execute()
    return rows.map((r) => r.order_id)
  }
  const { lo, hi } = scope.paidOrRefundedBetween
  const [paid, refunded] = await Promise.all([
    db
      .selectFrom('orders')
      .select('id')
      .where('paid_at', '>=', lo)
      .where('paid_at', '<', hi)
      .execute(),
    db
      .selectFrom('refunds')
      .select('order_id')
      .where('created_at', '>=', lo)
      .where('created_at', '<', hi)
      .execute(),
  ])
  return [...new Set([...paid.map((r) => r.id), ...refunded.map((r) => r.order_id)])]
}

/** The orders of a scope with all their lines and all their refunds. */
export async function loadMoneyRecords(db: Db, scope: OrderScope): Promise<MoneyRecords> {
  const ids = await orderIds(db, scope)
  const [orders, lines, refunds] = await Promise.all([
    chunked(ids, (chunk) =>
      db
        .selectFrom('orders')
        .select([...orderColumns])
        .where('id', 'in', chunk)
        .execute(),
    ),
    chunked(ids, (chunk) =>
      db
        .selectFrom('order_items')
        .select(['id', 'order_id', 'position', 'product_type', 'product_id', 'name', 'quantity'])
        .select('total_amount')
        .where('order_id', 'in', chunk)
        .execute(),
    ),
    chunked(ids, (chunk) =>
      db
        .selectFrom('refunds')
        .select(['id', 'order_id', 'order_line_id', 'amount', 'created_at'])
        .where('order_id', 'in', chunk)
        .execute(),
    ),
  ])
  return {
    orders: orders.map(
      (o): MoneyOrder => ({
        ...o,
        total: Number(o.total),
        tax_total: Number(o.tax_total),
        paid_at: o.paid_at === null ? null : Number(o.paid_at),
      }),
    ),
    lines: lines.map(
      (l): MoneyLine => ({
        ...l,
        position: Number(l.position),
        quantity: Number(l.quantity),
        total_amount: Number(l.total_amount),
      }),
    ),
    refunds: refunds.map(
      (r): MoneyRefund => ({
        ...r,
        order_line_id: r.order_line_id ?? null,
        amount: Number(r.amount),
        created_at: Number(r.created_at),
      }),
    ),
  }
}

/** Subscriptions (of these plans, when given) as the money rules read them. */
export async function loadSubscriptions(
  db: Db,
  filter: { readonly planIds?: readonly string[]; readonly startedBefore?: number } = {},
): Promise<Array<MoneySubscription & { readonly plan_id: string }>> {
  if (filter.planIds?.length === 0) return []
  const rows = await db
    .selectFrom('subscriptions')
    .select([
      'plan_id',
      'status',
      'amount',
      'currency',
      'interval',
      'interval_count',
      'source',
      'started_at',
      'trial_ends_at',
      'ended_at',
    ])
    .$if(filter.planIds !== undefined, (q) => q.where('plan_id', 'in', [...(filter.planIds ?? [])]))
    .$if(filter.startedBefore !== undefined, (q) =>
      q.where('started_at', '<', filter.startedBefore ?? 0),
    )
    .execute()
  return rows.map((s) => ({
    ...s,
    amount: Number(s.amount),
    interval_count: s.interval_count === null ? null : Number(s.interval_count),
    started_at: Number(s.started_at),
    trial_ends_at: s.trial_ends_at === null ? null : Number(s.trial_ends_at),
    ended_at: s.ended_at === null ? null : Number(s.ended_at),
  }))
}

/**
 * The currencies the school's figures list: its currency first, then every other currency of
 * its orders and subscriptions (see currencyOrder).
 */
export async function schoolCurrencies(db: Db): Promise<string[]> {
  const [school, orders, subs] = await Promise.all([
    db.selectFrom('school').select('currency').where('id', '=', SCHOOL_ID).executeTakeFirst(),
    db.selectFrom('orders').select('currency').distinct().execute(),
    db.selectFrom('subscriptions').select('currency').distinct().execute(),
  ])
  return currencyOrder(school?.currency || 'USD', [
    ...orders.map((r) => r.currency),
    ...subs.map((r) => r.currency),
  ])
}
