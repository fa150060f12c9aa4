import { beforeAll, describe, expect, it } from 'vitest'
import { useDemoServer } from '../../support/demo.js'
import type { Json } from '../../support/http.js'
import { type Call, expectScreensAgree, moneyClient } from '../../support/money-agreement.js'
import { referenceSplit } from '../../support/money-reference.js'
import { issue } from '../../support/token-lifecycle.js'
import { apiClient } from './conventions.js'

/**
 * Money that counts (README "Money that counts"): every screen that shows a money figure
 * shows what an independent computation over the demo school's raw records gives — and still
 * does after the owner changes the school's currency.
 */
describe('the demo school: every screen agrees with its records', () => {
  const demo = useDemoServer()
  let call: Call
  beforeAll(async () => {
    call = await moneyClient(demo())
  })

  it('has a history that exercises every money rule', async () => {
    const records = await expectScreensAgree(call)
    const orders = records.orders
    const now = Date.now()
    const counted = orders.filter((o) =>
      ['paid', 'partially_refunded', 'refunded'].includes(o.status),
    )
    // A taxed order of several lines with a coupon, partly refunded on a digital product
    // line named by the refund.
    const taxed = counted.find(
      (o) =>
        o.tax_total.amount > 0 &&
        o.coupon !== null &&
        o.items.length > 1 &&
        o.status === 'partially_refunded' &&
        o.refunds.some((r: Json) =>
          o.items.some(
            (i: Json) =>
              i.id === r.order_line_id &&
              ['digital_product', 'membership_plan'].includes(i.product_type),
          ),
        ),
    )
    expect(taxed, 'a taxed, discounted, multi-line order with a refund on its line').toBeDefined()
    // A refund naming no line whose split leaves remainders (largest remainder decides).
    const uneven = counted.some((o) =>
      o.refunds.some((r: Json) => {
        if (r.order_line_id !== null) return false
        const weights = [...o.items.map((i: Json) => i.total.amount), o.tax_total.amount]
        const total = weights.reduce((a: number, b: number) => a + b, 0)
        const exact = weights.map((w: number) => (r.amount.amount * w) / total)
        const split = referenceSplit(r.amount.amount, weights)
        return weights.length > 2 && exact.some((x: number, i: number) => x !== split[i])
      }),
    )
    expect(uneven, 'a refund that splits unevenly').toBe(true)
    expect(new Set(orders.map((o) => o.currency)).size).toBeGreaterThan(1)
    const subs = records.subscriptions
    expect(
      subs.some((s) => s.status === 'trialing' && Date.parse(s.trial_ends_at) < now),
      'a trial that ended without its status changing',
    ).toBe(true)
    expect(subs.some((s) => s.status === 'past_due')).toBe(true)
    expect(subs.some((s) => s.cancel_at_period_end && s.status === 'active')).toBe(true)
  })

  it('keeps every figure after the school currency changes (new prices only)', async () => {
    const before = await call('/api/v1/analytics/overview?timezone=UTC')
    const { accessToken } = await issue(demo(), { role: 'owner', scope: 'school:write' })
    const patched = await apiClient(demo(), accessToken)('/api/v1/school', {
      method: 'PATCH',
      json: { currency: 'GBP' },
    })
    expect(patched.status).toBe(200)
    const records = await expectScreensAgree(call)
    expect(records.schoolCurrency).toBe('GBP')
    const after = await call('/api/v1/analytics/overview?timezone=UTC')
    // The new currency leads with zeros; what was earned in dollars and euros is still there.
    expect(after.currencies).toEqual(['GBP', 'EUR', 'USD'])
    expect(after.revenue.gross[0]).toEqual({ amount: 0, currency: 'GBP' })
    const dollars = (list: Json[]) => list.find((m) => m.currency === 'USD')
    expect(dollars(after.revenue.net)).toEqual(dollars(before.revenue.net))
    expect(dollars(after.mrr)).toEqual(dollars(before.mrr))
    expect(dollars(after.mrr)?.amount).toBeGreaterThan(0)
    // Orders keep their own currency.
    const order = (await call('/api/v1/orders?limit=1')).data[0]
    expect(order.total.currency).not.toBe('GBP')
  })
})
