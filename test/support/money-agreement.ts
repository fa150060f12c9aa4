/**
 * The agreement check: reads the raw records through the API (orders with items and refunds,
 * subscriptions, the school), recomputes every money figure of every screen with the
 * independent reference (money-reference.ts) and asserts each screen shows exactly that.
 */
import { expect } from 'vitest'
import { apiClient } from '../http/api-resources/conventions.js'
import { type Json, readJson } from './http.js'
import {
  churned,
  couponFigures,
  currenciesOf,
  digitalProductFigures,
  orderFigures,
  planFigures,
  productFigures,
  type Records,
  subscriptionFigures,
} from './money-reference.js'
import type { TestServer } from './server.js'
import { issue } from './token-lifecycle.js'

export const MONEY_SCOPES =
  'orders:read subscriptions:read analytics:read membership_plans:read digital_products:read coupons:read school:read'

const DAY = 86_400_000
const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10)

export type Call = (path: string) => Promise<Json>

export async function moneyClient(server: TestServer): Promise<Call> {
  const { accessToken } = await issue(server, { role: 'owner', scope: MONEY_SCOPES })
  const call = apiClient(server, accessToken)
  return async (path: string) => {
    const response = await call(path)
    const body = await readJson(response)
    expect(response.status, `${path}: ${JSON.stringify(body)}`).toBe(200)
    return body
  }
}

/** Every item of a collection, page after page. */
export async function everything(call: Call, path: string): Promise<Json[]> {
  const out: Json[] = []
  let cursor: string | null = null
  do {
    const page: Json = await call(`${path}?limit=100${cursor ? `&cursor=${cursor}` : ''}`)
    out.push(...page.data)
    cursor = page.has_more ? page.next_cursor : null
  } while (cursor)
  return out
}

export async function readRecords(call: Call): Promise<Records> {
  const [school, orders, subscriptions] = await Promise.all([
    call('/api/v1/school'),
    everything(call, '/api/v1/orders'),
    everything(call, '/api/v1/subscriptions'),
  ])
  return { schoolCurrency: school.currency, orders, subscriptions }
}

/** The instant a screen read subscriptions at: `now`, within the call (no record is that close). */
const within = (from: number, to: number) => ({ from, to })

/**
 * Asserts every screen equals the reference over `days` UTC days ending today. Returns the
 * records, for callers that check more.
 */
export async function expectScreensAgree(call: Call, days = 365): Promise<Records> {
  const records = await readRecords(call)
  const currencies = currenciesOf(records)
  const now = Date.now()
  const to = utcDay(now)
  const start = Date.parse(to) - (days - 1) * DAY
  const end = Date.parse(to) + DAY
  const from = utcDay(start)
  const inRange = (at: number) => at >= start && at < end
  const query = `from=${from}&to=${to}&timezone=UTC`

  // Analytics overview.
  const before = Date.now()
  const overview = await call(`/api/v1/analytics/overview?${query}`)
  const after = Date.now()
  const expected = orderFigures(records, inRange)
  expect(overview.currencies, 'overview currencies').toEqual(currencies)
  expect(overview.revenue, 'overview revenue').toEqual({
    gross: expected.gross,
    refunds: expected.refunds,
    net: expected.net,
  })
  expect(overview.orders_count).toBe(expected.orders_count)
  expect(overview.paying_customers).toBe(expected.paying_customers)
  expect(overview.average_order_value, 'average order value').toEqual(expected.average_order_value)
  const { from: t0, to: t1 } = within(before, after)
  const subsAt = [subscriptionFigures(records, t0), subscriptionFigures(records, t1)]
  expect(subsAt, 'overview subscriptions').toContainEqual({
    active_subscriptions: overview.active_subscriptions,
    trialing_subscriptions: overview.trialing_subscriptions,
    mrr: overview.mrr,
  })
  expect(overview.churned_subscriptions).toBe(churned(records, inRange))

  // Revenue series by month, with product types.
  const series = await call(
    `/api/v1/analytics/revenue?${query}&interval=month&group_by=product_type`,
  )
  expect(series.currencies).toEqual(currencies)
  for (const period of series.data as Json[]) {
    const p0 = Math.max(Date.parse(period.period_start), start)
    const next = new Date(Date.parse(period.period_start))
    next.setUTCMonth(next.getUTCMonth() + 1)
    const p1 = Math.min(next.getTime(), end)
    const inPeriod = (at: number) => at >= p0 && at < p1
    const figures = orderFigures(records, inPeriod)
    expect(
      [period.gross, period.refunds, period.net, period.orders_count],
      `revenue ${period.period_start}`,
    ).toEqual([figures.gross, figures.refunds, figures.net, figures.orders_count])
    const types: Record<string, { gross: Json[]; refunds: Json[]; net: Json[] }> = {}
    for (const row of productFigures(records, inPeriod).values()) {
      const zeros = () => currencies.map((c) => ({ amount: 0, currency: c }))
      const t = types[row.product_type] ?? { gross: zeros(), refunds: zeros(), net: zeros() }
      types[row.product_type] = t
      for (const key of ['gross', 'refunds', 'net'] as const)
        row[key].forEach((m, i) => {
          ;(t[key][i] as Json).amount += m.amount
        })
    }
    expect(period.by_product_type, `by product type ${period.period_start}`).toEqual(types)
  }

  // Product ranking.
  const ranking = await call(`/api/v1/analytics/products?${query}&limit=200`)
  const products = productFigures(records, inRange)
  expect(ranking.total_count).toBe(products.size)
  for (const row of ranking.data as Json[]) {
    const { object: _, name: __, ...shown } = row
    expect(shown, `product ${row.product_type}/${row.product_id}`).toEqual(
      products.get(`${row.product_type}/${row.product_id}`),
    )
  }

  // Plan stats (now: the same instants as the overview; no record is that close to now).
  const plans = await everything(call, '/api/v1/membership_plans')
  for (const plan of plans) {
    const options = [planFigures(records, plan.id, t0), planFigures(records, plan.id, Date.now())]
    expect(options, `plan ${plan.id}`).toContainEqual(plan.stats)
  }

  // Digital-product stats.
  for (const product of await everything(call, '/api/v1/digital_products'))
    expect(
      { sales_count: product.sales_count, revenue: product.revenue },
      `digital product ${product.id}`,
    ).toEqual(digitalProductFigures(records, product.id))

  // Coupon stats.
  for (const coupon of await everything(call, '/api/v1/coupons'))
    expect(
      { times_redeemed: coupon.times_redeemed, revenue_attributed: coupon.revenue_attributed },
      `coupon ${coupon.code}`,
    ).toEqual(couponFigures(records, coupon.id))

  return records
}
