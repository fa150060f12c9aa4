/**
 * Revenue that counts, per order and per product line, by currency.
 *
 * - An order counts when its status is a revenue status (statuses.ts) and it has a `paid_at`:
 *   its gross is its `total` (tax included), on `paid_at`.
 * - A refund counts on its own `created_at`, whenever its order was paid, and only when its
 *   order counts. Refunds are read from the refunds themselves (not `amount_refunded`).
 * - net = gross − refunds; it may be negative in a range where refunds outweigh sales.
 * - A product line's gross is its `total_amount` (after discounts, before tax); its refunds
 *   are its parts of the order's refunds (refunds.ts). Units are its quantity.
 * Amounts of different currencies are never added: every sum is kept per currency.
 */
import { PerCurrency } from './currencies.js'
import type { MoneyLine, MoneyOrder, MoneyRecords } from './records.js'
import { customerKey } from './records.js'
import { refundParts } from './refunds.js'
import { isRevenueStatus } from './statuses.js'

/** Whether an order's money counts at all. */
export function countsAsRevenue(order: Pick<MoneyOrder, 'status' | 'paid_at'>): boolean {
  return isRevenueStatus(order.status) && order.paid_at !== null
}

/** Which instants a figure covers (a report's window; everything for all-time stats). */
export type Covers = (at: number) => boolean
export const ALL_TIME: Covers = () => true

export interface OrderFigures {
  readonly gross: PerCurrency
  readonly refunds: PerCurrency
  readonly net: PerCurrency
  /** Orders counted, all currencies. */
  orders_count: number
  /** Orders counted, per currency (for the average order value). */
  readonly orders_by_currency: PerCurrency
  /** Distinct customers with a counted order of a positive total. */
  readonly customers: Set<string>
}

/** Order-level figures: totals of counted orders paid when `covers`, less refunds then. */
export function orderFigures(
  records: Pick<MoneyRecords, 'orders' | 'refunds'>,
  covers: Covers,
): OrderFigures {
  const figures: OrderFigures = {
    gross: new PerCurrency(),
    refunds: new PerCurrency(),
    net: new PerCurrency(),
    orders_count: 0,
    orders_by_currency: new PerCurrency(),
    customers: new Set(),
  }
  const counted = new Map<string, MoneyOrder>()
  for (const order of records.orders) {
    if (!countsAsRevenue(order)) continue
    counted.set(order.id, order)
    if (!covers(order.paid_at as number)) continue
    figures.gross.add(order.currency, order.total)
    figures.net.add(order.currency, order.total)
    figures.orders_count += 1
    figures.orders_by_currency.add(order.currency, 1)
    if (order.total > 0) figures.customers.add(customerKey(order))
  }
  for (const refund of records.refunds) {
    const order = counted.get(refund.order_id)
    if (!order || !covers(refund.created_at)) continue
    figures.refunds.add(order.currency, refund.amount)
    figures.net.add(order.currency, -refund.amount)
  }
  return figures
}

/** a / b rounded half up to an integer (b > 0, a ≥ 0); 0 when b is 0. */
export function divideRounded(a: number, b: number): number {
  if (b <= 0) return 0
  return Math.floor((2 * a + b) / (2 * b))
}

export interface ProductFigures {
  readonly product_type: string
  readonly product_id: string
  /** The name on the product's most recently paid line. */
  name: string
  units: number
  readonly gross: PerCurrency
  readonly refunds: PerCurrency
  readonly net: PerCurrency
}

export const productKey = (type: string, id: string) => `${type}\u0000${id}`

/**
 * Product-level figures: units and gross of the lines of counted orders paid when `covers`,
 * and the line parts of their refunds created when `covers`, keyed by productKey. `only`
 * keeps the products it accepts (the others' lines still take their part of a refund).
 */
export function productFigures(
  records: MoneyRecords,
  covers: Covers,
  only: (line: Pick<MoneyLine, 'product_type' | 'product_id'>) => boolean = () => true,
): Map<string, ProductFigures> {
  const orders = new Map(
    records.orders.filter(countsAsRevenue).map((order) => [order.id, order] as const),
  )
  const linesOf = new Map<string, MoneyLine[]>()
  for (const line of records.lines) {
    if (!orders.has(line.order_id)) continue
    linesOf.set(line.order_id, [...(linesOf.get(line.order_id) ?? []), line])
  }
  const products = new Map<string, ProductFigures & { named_at: number }>()
  const entry = (line: MoneyLine, at: number) => {
    const key = productKey(line.product_type, line.product_id)
    let figures = products.get(key)
    if (!figures) {
      figures = {
        product_type: line.product_type,
        product_id: line.product_id,
        name: line.name,
        units: 0,
        gross: new PerCurrency(),
        refunds: new PerCurrency(),
        net: new PerCurrency(),
        named_at: at,
      }
      products.set(key, figures)
    }
    if (at > figures.named_at) {
      figures.name = line.name
      figures.named_at = at
    }
    return figures
  }
  for (const order of orders.values()) {
    const paidAt = order.paid_at as number
    if (!covers(paidAt)) continue
    for (const line of linesOf.get(order.id) ?? []) {
      if (!only(line)) continue
      const figures = entry(line, paidAt)
      figures.units += line.quantity
      figures.gross.add(order.currency, line.total_amount)
      figures.net.add(order.currency, line.total_amount)
    }
  }
  for (const refund of records.refunds) {
    const order = orders.get(refund.order_id)
    if (!order || !covers(refund.created_at)) continue
    const lines = linesOf.get(order.id) ?? []
    const parts = refundParts(order, lines, refund)
    for (const line of lines) {
      const part = parts.lines.get(line.id)
      if (!part || !only(line)) continue
      const figures = entry(line, Number.NEGATIVE_INFINITY)
      figures.refunds.add(order.currency, part)
      figures.net.add(order.currency, -part)
    }
  }
  const out = new Map<string, ProductFigures>()
  for (const [key, { named_at: _, ...figures }] of products) out.set(key, figures)
  return out
}

/** Net revenue per currency of the counted orders that `take` accepts (coupon revenue). */
export function netOfOrders(
  records: Pick<MoneyRecords, 'orders' | 'refunds'>,
  take: (order: MoneyOrder) => boolean,
): PerCurrency {
  return orderFigures({ orders: records.orders.filter(take), refunds: records.refunds }, ALL_TIME)
    .net
}
