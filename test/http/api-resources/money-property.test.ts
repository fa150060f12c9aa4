import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Db } from '../../../src/storage/schema.js'
import type { OrderStatus } from '../../../src/storage/tables/commerce.js'
import type { SubscriptionTable } from '../../../src/storage/tables/memberships.js'
import { type Call, expectScreensAgree, moneyClient } from '../../support/money-agreement.js'
import { startTestServer, type TestServer } from '../../support/server.js'
import { issue } from '../../support/token-lifecycle.js'
import { apiClient } from './conventions.js'

/**
 * Money that counts, on any school's data: random histories (order statuses, currencies, tax,
 * coupons, refunds with and without a line, trials that ended, every subscription status, a
 * school currency that differs from the records') are written as rows, and every screen must
 * equal the independent reference (test/support/money-reference.ts).
 */
const DAY = 86_400_000
const HOUR = 3_600_000
const RUNS = Number(process.env.MONEY_PROPERTY_RUNS ?? 40)

let server: TestServer
let db: Db
let call: Call
let setSchoolCurrency: (currency: string) => Promise<void>

const PLANS = ['mpl_p1', 'mpl_p2']
const PRODUCTS = ['dpr_p1', 'dpr_p2']
const COUPONS = ['cpn_p1', 'cpn_p2']
const STUDENTS = ['stu_p1', 'stu_p2']

beforeAll(async () => {
  server = await startTestServer()
  db = server.deps.database.db as Db
  const t = Date.now() - 400 * DAY
  for (const id of STUDENTS)
    await db
      .insertInto('students')
      .values({
        id,
        email: `${id}@example.com`,
        name: id,
        user_id: null,
        phone: null,
        locale: null,
        timezone: null,
        status: 'active',
        tags: null,
        marketing_opt_in: 0,
        source: 'signup',
        notes: null,
        created_at: t,
        updated_at: t,
      })
      .execute()
  for (const [n, id] of PLANS.entries()) {
    await db
      .insertInto('membership_plans')
      .values({
        id,
        name: id,
        slug: id,
        description: null,
        cover_image_url: null,
        status: 'active',
        visible: 1,
        billing_type: 'recurring',
        includes: '{}',
        features: '[]',
        faq: '[]',
        position: n,
        created_at: t,
        updated_at: t,
      })
      .execute()
    await db
      .insertInto('membership_plan_prices')
      .values({
        id: `mpp_${id}`,
        plan_id: id,
        amount: 1900,
        currency: 'USD',
        interval: 'month',
        interval_count: 1,
        trial_days: 0,
        access_days: null,
        ends_on: null,
        active: 1,
        created_at: t,
      })
      .execute()
  }
  for (const id of PRODUCTS)
    await db
      .insertInto('digital_products')
      .values({
        id,
        title: id,
        slug: id,
        description: null,
        cover_image_url: null,
        status: 'published',
        visibility: 'public',
        price: JSON.stringify({ amount: 1000, currency: 'USD' }),
        price_amount: 1000,
        currency: 'USD',
        compare_at_price: null,
        files: '[]',
        download_limit: null,
        access_days: null,
        license_text: null,
        published_at: t,
        created_at: t,
        updated_at: t,
      })
      .execute()
  for (const id of COUPONS)
    await db
      .insertInto('coupons')
      .values({
        id,
        code: id.toUpperCase(),
        name: null,
        description: null,
        discount: JSON.stringify({ type: 'percent', percent_off: 10 }),
        applies_to: JSON.stringify({ type: 'all', products: [] }),
        duration: JSON.stringify({ type: 'once' }),
        max_redemptions: null,
        max_redemptions_per_customer: null,
        min_order_amount: null,
        starts_at: null,
        expires_at: null,
        enabled: 1,
        created_at: t,
        updated_at: t,
      })
      .execute()
  call = await moneyClient(server)
  const { accessToken } = await issue(server, { role: 'owner', scope: 'school:write' })
  setSchoolCurrency = async (currency: string) => {
    const response = await apiClient(server, accessToken)('/api/v1/school', {
      method: 'PATCH',
      json: { currency },
    })
    expect(response.status).toBe(200)
  }
})
afterAll(async () => {
  await server?.close()
})

const currency = fc.constantFrom('USD', 'EUR', 'GBP')
const line = fc.record({
  product: fc.constantFrom(
    ['course', 'crs_p1'],
    ['membership_plan', 'mpl_p1'],
    ['membership_plan', 'mpl_p2'],
    ['digital_product', 'dpr_p1'],
    ['digital_product', 'dpr_p2'],
  ),
  quantity: fc.integer({ min: 1, max: 3 }),
  total: fc.integer({ min: 0, max: 50_000 }),
})
const refund = fc.record({
  line: fc.option(fc.nat({ max: 2 })),
  amount: fc.integer({ min: 1, max: 60_000 }),
  afterDays: fc.integer({ min: 0, max: 30 }),
})
const order = fc.record({
  status: fc.constantFrom<OrderStatus>(
    'paid',
    'partially_refunded',
    'refunded',
    'free',
    'pending',
    'failed',
    'expired',
  ),
  currency,
  lines: fc.array(line, { minLength: 1, maxLength: 3 }),
  tax: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 9_999 })),
  coupon: fc.option(fc.constantFrom(...COUPONS)),
  student: fc.option(fc.constantFrom(...STUDENTS)),
  paidDaysAgo: fc.integer({ min: 1, max: 330 }),
  refunds: fc.array(refund, { maxLength: 2 }),
})
const subscription = fc.record({
  plan: fc.constantFrom(...PLANS),
  status: fc.constantFrom<SubscriptionTable['status']>(
    'trialing',
    'active',
    'past_due',
    'canceled',
    'expired',
    'incomplete',
  ),
  currency,
  amount: fc.integer({ min: 0, max: 50_000 }),
  interval: fc.constantFrom<'month' | 'year' | null>('month', 'year', null),
  intervalCount: fc.integer({ min: 1, max: 3 }),
  manual: fc.boolean(),
  startedDaysAgo: fc.integer({ min: 1, max: 330 }),
  /** Days from now the trial ends (negative: it ended); null: no trial. */
  trialEndsIn: fc.option(fc.integer({ min: -20, max: 20 })),
  endedDaysAgo: fc.option(fc.integer({ min: 1, max: 300 })),
  cancelling: fc.boolean(),
})
const history = fc.record({
  schoolCurrency: currency,
  orders: fc.array(order, { maxLength: 8 }),
  subscriptions: fc.array(subscription, { maxLength: 6 }),
})

type History = typeof history extends fc.Arbitrary<infer T> ? T : never

let run = 0
async function write(h: History): Promise<void> {
  run += 1
  const now = Date.now()
  // Whole days plus an hour: no record lies on the instant the screens read.
  const ago = (days: number) => now - days * DAY - HOUR
  await db.deleteFrom('refunds').execute()
  await db.deleteFrom('order_items').execute()
  await db.deleteFrom('orders').execute()
  await db.deleteFrom('subscriptions').execute()
  // The owner's way: PATCH /api/v1/school (new prices only; records keep their currency).
  await setSchoolCurrency(h.schoolCurrency)
  for (const [n, o] of h.orders.entries()) {
    const id = `ord_p${run}_${n}`
    const totals = o.lines.map((l) => l.total)
    const total = totals.reduce((a, b) => a + b, 0) + o.tax
    const paid = ['paid', 'partially_refunded', 'refunded', 'free'].includes(o.status)
    const paidAt = paid ? ago(o.paidDaysAgo) : null
    // Refunds only on money taken, never more than the order's total.
    let left = ['partially_refunded', 'refunded'].includes(o.status) ? total : 0
    const refunds = o.refunds.flatMap((r) => {
      const amount = Math.min(r.amount, left)
      if (amount <= 0 || paidAt === null) return []
      left -= amount
      const line = r.line === null ? null : r.line % o.lines.length
      return [{ ...r, amount, line, at: Math.min(paidAt + r.afterDays * DAY, now - HOUR) }]
    })
    await db
      .insertInto('orders')
      .values({
        id,
        number: `P${run}-${n}`,
        status: o.status,
        student_id: o.student,
        customer_email: `guest${n % 3}@example.com`,
        customer_name: null,
        currency: o.currency,
        subtotal: total - o.tax,
        discount_total: 0,
        tax_total: o.tax,
        total,
        amount_refunded: refunds.reduce((a, r) => a + r.amount, 0),
        coupon_id: o.coupon,
        coupon_code: o.coupon?.toUpperCase() ?? null,
        payment: '{"provider":"stripe","method":"card","provider_reference":null}',
        subscription_id: null,
        source: 'checkout',
        paid_at: paidAt,
        created_at: paidAt ?? ago(o.paidDaysAgo),
        updated_at: now,
      })
      .execute()
    for (const [position, l] of o.lines.entries())
      await db
        .insertInto('order_items')
        .values({
          id: `${id}_${position}`,
          order_id: id,
          position,
          product_type: l.product[0] as 'course',
          product_id: l.product[1] as string,
          price_id: null,
          event_id: null,
          name: `${l.product[1]} line`,
          quantity: l.quantity,
          unit_amount: l.total,
          discount_amount: 0,
          total_amount: l.total,
        })
        .execute()
    for (const [k, r] of refunds.entries())
      await db
        .insertInto('refunds')
        .values({
          id: `rfd_${id}_${k}`,
          order_id: id,
          order_line_id: r.line === null ? null : `${id}_${r.line}`,
          amount: r.amount,
          reason: null,
          created_at: r.at,
        })
        .execute()
  }
  for (const [n, s] of h.subscriptions.entries()) {
    const started = ago(s.startedDaysAgo)
    const ended =
      ['canceled', 'expired'].includes(s.status) && s.endedDaysAgo !== null
        ? Math.max(started + HOUR, ago(s.endedDaysAgo))
        : null
    await db
      .insertInto('subscriptions')
      .values({
        id: `sub_p${run}_${n}`,
        student_id: STUDENTS[n % 2] as string,
        plan_id: s.plan,
        price_id: `mpp_${s.plan}`,
        status: s.status,
        amount: s.amount,
        currency: s.currency,
        interval: s.interval,
        interval_count: s.interval === null ? null : s.intervalCount,
        source: s.manual ? 'manual' : 'checkout',
        started_at: started,
        trial_ends_at: s.trialEndsIn === null ? null : now + s.trialEndsIn * DAY + HOUR,
        current_period_start: started,
        current_period_end: null,
        cancel_at_period_end: s.cancelling ? 1 : 0,
        canceled_at: null,
        cancellation_reason: null,
        ended_at: ended,
        latest_order_id: null,
        created_at: started,
        updated_at: started,
      })
      .execute()
  }
}

describe('any school: every screen agrees with its records', () => {
  it('holds for random histories (statuses, currencies, tax, coupons, refunds, trials)', async () => {
    await fc.assert(
      fc.asyncProperty(history, async (h) => {
        await write(h)
        await expectScreensAgree(call)
      }),
      { numRuns: RUNS, endOnFailure: true },
    )
  }, 600_000)
})
