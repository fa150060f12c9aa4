/**
 * An independent reference for every money figure, computed from what the API shows of the
 * raw records (orders with their items and refunds, subscriptions, the school currency). It
 * restates the documented rules (README "Money that counts") without importing src/api/money,
 * so a rule changed on one side only makes the agreement tests fail.
 */
import type { Json } from './http.js'

export interface Money {
  amount: number
  currency: string
}

const REVENUE = new Set(['paid', 'partially_refunded', 'refunded'])
const REDEEMED = new Set([...REVENUE, 'free'])
const ms = (text: string | null | undefined) => (text ? Date.parse(text) : null)

/** Sums per currency, listed in the school's order. */
class Sums {
  readonly by = new Map<string, number>()
  add(currency: string, amount: number) {
    this.by.set(currency, (this.by.get(currency) ?? 0) + amount)
  }
  get(currency: string) {
    return this.by.get(currency) ?? 0
  }
  list(currencies: readonly string[]): Money[] {
    return currencies.map((currency) => ({ amount: this.get(currency), currency }))
  }
}

/** Largest-remainder split in exact rational arithmetic (BigInt). */
export function referenceSplit(amount: number, weights: readonly number[]): number[] {
  if (weights.length === 0) return []
  const w = weights.map((x) => BigInt(Math.max(0, x)))
  const even = w.every((x) => x === 0n)
  const ws = even ? w.map(() => 1n) : w
  const total = ws.reduce((a, b) => a + b, 0n)
  const a = BigInt(amount)
  const floors = ws.map((x) => (a * x) / total)
  const rest = ws.map((x, i) => ({ i, r: a * x - (floors[i] as bigint) * total }))
  let left = Number(a - floors.reduce((s, x) => s + x, 0n))
  rest.sort((p, q) => (q.r > p.r ? 1 : q.r < p.r ? -1 : p.i - q.i))
  const out = floors.map(Number)
  for (const { i } of rest) {
    if (left-- <= 0) break
    out[i] = (out[i] as number) + 1
  }
  return out
}

export interface Records {
  readonly schoolCurrency: string
  readonly orders: readonly Json[]
  readonly subscriptions: readonly Json[]
}

export function currenciesOf(records: Records): string[] {
  const seen = new Set<string>([
    ...records.orders.map((o) => o.currency as string),
    ...records.subscriptions.map((s) => s.amount.currency as string),
  ])
  seen.delete(records.schoolCurrency)
  return [records.schoolCurrency, ...[...seen].sort()]
}

const counted = (o: Json) => REVENUE.has(o.status) && o.paid_at !== null

/** Each refund's charge per line id (the rest refunds tax). */
function lineCharges(order: Json, refund: Json): Map<string, number> {
  const items = order.items as Json[]
  const totals = items.map((i) => i.total.amount as number)
  const tax = order.tax_total.amount as number
  const out = new Map<string, number>()
  const index = items.findIndex((i) => i.id === refund.order_line_id)
  if (refund.order_line_id && index >= 0) {
    const lineTax = referenceSplit(tax, totals)[index] as number
    const [line] = referenceSplit(refund.amount.amount, [totals[index] as number, lineTax])
    out.set(items[index]?.id, line as number)
    return out
  }
  const parts = referenceSplit(refund.amount.amount, [...totals, tax])
  for (const [i, item] of items.entries()) out.set(item.id, parts[i] as number)
  return out
}

/** Order-level figures over instants `covers` accepts. */
export function orderFigures(records: Records, covers: (at: number) => boolean) {
  const currencies = currenciesOf(records)
  const gross = new Sums()
  const refunds = new Sums()
  const orders = new Sums()
  const customers = new Set<string>()
  let count = 0
  for (const o of records.orders.filter(counted)) {
    if (covers(ms(o.paid_at) as number)) {
      gross.add(o.currency, o.total.amount)
      orders.add(o.currency, 1)
      count += 1
      if (o.total.amount > 0)
        customers.add(o.student_id ?? `email:${String(o.customer.email).trim().toLowerCase()}`)
    }
    for (const r of o.refunds as Json[])
      if (covers(ms(r.created_at) as number)) refunds.add(o.currency, r.amount.amount)
  }
  const net = new Sums()
  for (const c of currencies) net.add(c, gross.get(c) - refunds.get(c))
  return {
    gross: gross.list(currencies),
    refunds: refunds.list(currencies),
    net: net.list(currencies),
    orders_count: count,
    paying_customers: customers.size,
    average_order_value: currencies.map((c) => ({
      amount:
        orders.get(c) === 0
          ? 0
          : Math.floor((2 * gross.get(c) + orders.get(c)) / (2 * orders.get(c))),
      currency: c,
    })),
  }
}

export interface ProductRow {
  product_type: string
  product_id: string
  units: number
  gross: Money[]
  refunds: Money[]
  net: Money[]
}

/** Product-level figures (keyed `type/id`) over instants `covers` accepts. */
export function productFigures(records: Records, covers: (at: number) => boolean) {
  const currencies = currenciesOf(records)
  const acc = new Map<
    string,
    { type: string; id: string; units: number; gross: Sums; refunds: Sums }
  >()
  const entry = (item: Json) => {
    const key = `${item.product_type}/${item.product_id}`
    let e = acc.get(key)
    if (!e) {
      e = {
        type: item.product_type,
        id: item.product_id,
        units: 0,
        gross: new Sums(),
        refunds: new Sums(),
      }
      acc.set(key, e)
    }
    return e
  }
  for (const o of records.orders.filter(counted)) {
    if (covers(ms(o.paid_at) as number))
      for (const item of o.items as Json[]) {
        const e = entry(item)
        e.units += item.quantity
        e.gross.add(o.currency, item.total.amount)
      }
    for (const r of o.refunds as Json[]) {
      if (!covers(ms(r.created_at) as number)) continue
      for (const [lineId, part] of lineCharges(o, r)) {
        if (part === 0) continue
        const item = (o.items as Json[]).find((i) => i.id === lineId)
        entry(item as Json).refunds.add(o.currency, part)
      }
    }
  }
  const out = new Map<string, ProductRow>()
  for (const [key, e] of acc) {
    const net = new Sums()
    for (const c of currencies) net.add(c, e.gross.get(c) - e.refunds.get(c))
    out.set(key, {
      product_type: e.type,
      product_id: e.id,
      units: e.units,
      gross: e.gross.list(currencies),
      refunds: e.refunds.list(currencies),
      net: net.list(currencies),
    })
  }
  return out
}

/** Subscription figures at instant `at`, of the subscriptions `take` accepts. */
export function subscriptionFigures(
  records: Records,
  at: number,
  take: (s: Json) => boolean = () => true,
) {
  const currencies = currenciesOf(records)
  let active = 0
  let trialing = 0
  const exact = new Map<string, number>()
  for (const s of records.subscriptions.filter(take)) {
    const started = ms(s.started_at) as number
    const ended = ms(s.ended_at)
    const trialEnd = ms(s.trial_ends_at)
    const inTrial = trialEnd !== null && trialEnd > at
    if (s.status === 'incomplete' || started > at) continue
    const running =
      ended !== null
        ? ended > at
        : s.status === 'active' || s.status === 'past_due' || (s.status === 'trialing' && inTrial)
    if (!running) continue
    if (inTrial) {
      trialing += 1
      continue
    }
    active += 1
    if (s.interval === null || s.source === 'manual') continue
    const n = s.interval_count ?? 1
    const perMonth =
      s.interval === 'month'
        ? s.amount.amount / n
        : s.interval === 'year'
          ? s.amount.amount / (12 * n)
          : 0
    exact.set(s.amount.currency, (exact.get(s.amount.currency) ?? 0) + perMonth)
  }
  return {
    active_subscriptions: active,
    trialing_subscriptions: trialing,
    mrr: currencies.map((c) => ({
      amount: Math.floor((exact.get(c) ?? 0) + 0.5 + 1e-9),
      currency: c,
    })),
  }
}

export function churned(records: Records, covers: (at: number) => boolean) {
  return records.subscriptions.filter((s) => s.ended_at && covers(ms(s.ended_at) as number)).length
}

/** Coupon stats: redemptions and net revenue (totals less refunds) of its counted orders. */
export function couponFigures(records: Records, couponId: string) {
  const currencies = currenciesOf(records)
  const own = records.orders.filter((o) => o.coupon?.id === couponId)
  const net = new Sums()
  for (const o of own.filter(counted)) {
    net.add(o.currency, o.total.amount)
    for (const r of o.refunds as Json[]) net.add(o.currency, -r.amount.amount)
  }
  return {
    times_redeemed: own.filter((o) => REDEEMED.has(o.status)).length,
    revenue_attributed: net.list(currencies),
  }
}

/** Digital product stats: units on redeemed orders, net revenue of all time. */
export function digitalProductFigures(records: Records, productId: string) {
  const currencies = currenciesOf(records)
  let sales = 0
  for (const o of records.orders.filter((o) => REDEEMED.has(o.status)))
    for (const i of o.items as Json[])
      if (i.product_type === 'digital_product' && i.product_id === productId) sales += i.quantity
  const row = productFigures(records, () => true).get(`digital_product/${productId}`)
  return {
    sales_count: sales,
    revenue: row?.net ?? currencies.map((c) => ({ amount: 0, currency: c })),
  }
}

/** Plan stats now: subscription figures of the plan and its net revenue of all time. */
export function planFigures(records: Records, planId: string, now: number) {
  const currencies = currenciesOf(records)
  const subs = subscriptionFigures(records, now, (s) => s.plan_id === planId)
  const row = productFigures(records, () => true).get(`membership_plan/${planId}`)
  return {
    active_subscriptions: subs.active_subscriptions,
    trialing: subs.trialing_subscriptions,
    mrr: subs.mrr,
    total_revenue: row?.net ?? currencies.map((c) => ({ amount: 0, currency: c })),
  }
}
