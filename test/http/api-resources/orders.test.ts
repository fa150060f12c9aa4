import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { orders } from '../../../src/api/commerce/orders.resource.js'
import type { Db } from '../../../src/storage/schema.js'
import type { OrderStatus } from '../../../src/storage/tables/commerce.js'
import { useDemoServer } from '../../support/demo.js'
import { type Json, readJson } from '../../support/http.js'
import { startTestServer, type TestServer } from '../../support/server.js'
import { issue } from '../../support/token-lifecycle.js'
import { apiClient, checkConventions } from './conventions.js'

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(async () => {
  await server?.close()
})

const DAY = 86_400_000
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z')
let serial = 0

interface OrderSpec {
  status?: OrderStatus
  paidAt?: number | null
  createdAt?: number
  studentId?: string | null
  email?: string
  lines?: Array<{ type?: string; product: string; event?: string; amount: number }>
  refunds?: number[]
  couponId?: string | null
}

/** An order with its lines and refunds, straight into the database (orders are read only). */
async function insertOrder(target: TestServer, spec: OrderSpec = {}): Promise<Json> {
  const db = target.deps.database.db as Db
  const n = ++serial
  const now = Date.now()
  const id = `ord_test_${n}`
  const number = String(5000 + n)
  const lines = spec.lines ?? [{ product: 'crs_test_a', amount: 4900 }]
  const total = lines.reduce((sum, l) => sum + l.amount, 0)
  const refunds = spec.refunds ?? []
  const createdAt = spec.createdAt ?? now
  await db
    .insertInto('orders')
    .values({
      id,
      number,
      status: spec.status ?? 'paid',
      student_id: spec.studentId ?? null,
      customer_email: spec.email ?? `buyer${n}@example.com`,
      customer_name: `Buyer ${n}`,
      currency: 'USD',
      subtotal: total,
      discount_total: 0,
      tax_total: 0,
      total,
      amount_refunded: refunds.reduce((a, b) => a + b, 0),
      coupon_id: spec.couponId ?? null,
      coupon_code: null,
      payment: JSON.stringify({
        provider: 'stripe',
        method: 'card',
        provider_reference: `pi_${n}`,
        last4: '4242',
      }),
      subscription_id: null,
      source: 'checkout',
      paid_at: spec.paidAt === undefined ? createdAt : spec.paidAt,
      created_at: createdAt,
      updated_at: createdAt,
    })
    .execute()
  for (const [position, line] of lines.entries())
    await db
      .insertInto('order_items')
      .values({
        id: `oit_test_${n}_${position}`,
        order_id: id,
        position,
        product_type: (line.type ?? 'course') as 'course',
        product_id: line.product,
        price_id: null,
        event_id: line.event ?? null,
        name: `Product ${line.product}`,
        quantity: 1,
        unit_amount: line.amount,
        discount_amount: 0,
        total_amount: line.amount,
      })
      .execute()
  for (const [k, amount] of refunds.entries())
    await db
      .insertInto('refunds')
      .values({
        id: `rfd_test_${n}_${k}`,
        order_id: id,
        amount,
        reason: `reason ${k}`,
        created_at: createdAt + (k + 1) * 1000,
      })
      .execute()
  return { id, number }
}

async function reader(target = server) {
  const { accessToken } = await issue(target, { role: 'owner', scope: 'orders:read' })
  return apiClient(target, accessToken)
}

const ids = (list: Json) => list.data.map((o: Json) => o.id)

describe('/api/v1/orders: the conventions', () => {
  checkConventions(() => server, {
    resource: orders,
    fixture: async (target) => (await insertOrder(target)).id,
  })
})

describe('/api/v1/orders: its own rules', () => {
  it('embeds lines and refunds, with every amount as Money, and reads by number', async () => {
    const call = await reader()
    const order = await insertOrder(server, {
      status: 'partially_refunded',
      lines: [
        { product: 'crs_test_b', amount: 9900 },
        { type: 'event_ticket', product: 'tkt_test_b', event: 'evt_test_b', amount: 8900 },
      ],
      refunds: [1000, 2500],
      couponId: null,
    })
    const byId = await call(`/api/v1/orders/${order.id}`)
    expect(byId.status).toBe(200)
    const body = await readJson(byId)
    expect(body).toMatchObject({
      object: 'order',
      number: order.number,
      status: 'partially_refunded',
      subtotal: { amount: 18800, currency: 'USD' },
      discount_total: { amount: 0, currency: 'USD' },
      tax_total: { amount: 0, currency: 'USD' },
      total: { amount: 18800, currency: 'USD' },
      amount_refunded: { amount: 3500, currency: 'USD' },
      coupon: null,
      customer: { email: expect.stringMatching(/@example\.com$/), name: expect.any(String) },
      payment: { provider: 'stripe', method: 'card', last4: '4242' },
    })
    expect(body.items).toHaveLength(2)
    expect(body.items[1]).toMatchObject({
      product_type: 'event_ticket',
      product_id: 'tkt_test_b',
      event_id: 'evt_test_b',
      quantity: 1,
      unit_price: { amount: 8900, currency: 'USD' },
      discount: { amount: 0, currency: 'USD' },
      total: { amount: 8900, currency: 'USD' },
    })
    expect(body.refunds.map((r: Json) => r.amount.amount)).toEqual([1000, 2500])
    expect(body.refunds[0].created_at).toMatch(/Z$/)
    const sum = body.refunds.reduce((a: number, r: Json) => a + r.amount.amount, 0)
    expect(sum).toBe(body.amount_refunded.amount)
    const byNumber = await readJson(await call(`/api/v1/orders/${order.number}`))
    expect(byNumber.id).toBe(order.id)
    expect((await call('/api/v1/orders/999999')).status).toBe(404)
  })

  it('filters by status, paid_at range, product, student, e-mail and coupon', async () => {
    const call = await reader()
    const db = server.deps.database.db as Db
    const now = Date.now()
    await db
      .insertInto('students')
      .values({
        id: 'stu_ordtest',
        email: 'ordtest@example.com',
        name: 'Order Test',
        user_id: null,
        phone: null,
        locale: 'en',
        timezone: 'UTC',
        status: 'active',
        tags: '[]',
        marketing_opt_in: 0,
        source: 'signup',
        notes: null,
        created_at: now,
        updated_at: now,
      })
      .execute()
    const old = await insertOrder(server, {
      createdAt: now - 40 * DAY,
      studentId: 'stu_ordtest',
      email: 'OrdTest@Example.com',
      lines: [{ product: 'crs_filter_x', amount: 1000 }],
    })
    const recent = await insertOrder(server, {
      createdAt: now - 5 * DAY,
      lines: [
        { type: 'digital_product', product: 'dpr_filter_y', amount: 2400 },
        { type: 'event_ticket', product: 'tkt_filter_z', event: 'evt_filter_z', amount: 8900 },
      ],
    })
    const failed = await insertOrder(server, {
      status: 'failed',
      paidAt: null,
      createdAt: now - 2 * DAY,
      lines: [{ product: 'crs_filter_x', amount: 1000 }],
    })
    const expectIds = async (query: string, wanted: string[], unwanted: string[] = []) => {
      const list = await readJson(await call(`/api/v1/orders?limit=100&${query}`))
      for (const id of wanted) expect(ids(list), query).toContain(id)
      for (const id of unwanted) expect(ids(list), query).not.toContain(id)
      expect(list.total_count).toBe(list.data.length)
      return list
    }
    const failedList = await expectIds('status=failed', [failed.id], [old.id, recent.id])
    for (const o of failedList.data) expect(o.status).toBe('failed')
    await expectIds(
      `paid_at[gte]=${iso(now - 10 * DAY)}&paid_at[lt]=${iso(now + DAY)}`,
      [recent.id],
      [old.id, failed.id],
    )
    await expectIds(`paid_at[lt]=${iso(now - 30 * DAY)}`, [old.id], [recent.id, failed.id])
    await expectIds('product_id=crs_filter_x', [old.id, failed.id], [recent.id])
    await expectIds('product_id=evt_filter_z', [recent.id], [old.id])
    await expectIds('product_id=crs_filter_x&status=paid', [old.id], [failed.id, recent.id])
    const tickets = await expectIds('product_type=event_ticket', [recent.id], [old.id])
    for (const o of tickets.data)
      expect(o.items.some((i: Json) => i.product_type === 'event_ticket')).toBe(true)
    await expectIds('student_id=stu_ordtest', [old.id], [recent.id])
    await expectIds('email=ordtest@EXAMPLE.com', [old.id], [recent.id])
    const nothing = await readJson(await call('/api/v1/orders?coupon_id=cpn_nothing'))
    expect(nothing.total_count).toBe(0)
    for (const query of ['status=lost', 'product_type=car', 'paid_at[gte]=yesterday'])
      expect((await call(`/api/v1/orders?${query}`)).status, query).toBe(400)
  })

  it('documents its filters, the declared ones included, in the OpenAPI document', async () => {
    const document = await readJson(await server.fetch('/openapi.json'))
    const list = document.paths['/api/v1/orders'].get
    const names = list.parameters.map((p: Json) => p.name)
    for (const name of ['status', 'student_id', 'email', 'product_type', 'product_id', 'coupon_id'])
      expect(names).toContain(name)
    expect(names).toContain('paid_at[gte]')
    expect(document.paths['/api/v1/orders'].post).toBeUndefined()
    const coupons = document.paths['/api/v1/coupons'].get.parameters.map((p: Json) => p.name)
    for (const name of ['status', 'code', 'q', 'applies_to_product_id'])
      expect(coupons).toContain(name)
  })

  it('lists newest first by default', async () => {
    const call = await reader()
    const list = await readJson(await call('/api/v1/orders?limit=100'))
    const times = list.data.map((o: Json) => Date.parse(o.created_at))
    expect(times).toEqual([...times].sort((a, b) => b - a))
  })

  it('serves no writes, even with every scope', async () => {
    const { accessToken } = await issue(server, { role: 'owner', scope: 'orders:read' })
    const call = apiClient(server, accessToken)
    const order = await insertOrder(server)
    for (const [method, path] of [
      ['POST', '/api/v1/orders'],
      ['PATCH', `/api/v1/orders/${order.id}`],
      ['DELETE', `/api/v1/orders/${order.id}`],
      ['POST', `/api/v1/orders/${order.id}/refund`],
    ] as const)
      expect([404, 405]).toContain((await call(path, { method, json: {} })).status)
  })
})

describe('/api/v1/orders: the demo school', () => {
  const demo = useDemoServer()

  async function all(path: string, scope: string): Promise<Json[]> {
    const { accessToken } = await issue(demo(), { role: 'owner', scope })
    const call = apiClient(demo(), accessToken)
    const out: Json[] = []
    let cursor: string | null = null
    do {
      const page: Json = await readJson(
        await call(`${path}?limit=100${cursor ? `&cursor=${cursor}` : ''}`),
      )
      out.push(...page.data)
      cursor = page.has_more ? page.next_cursor : null
    } while (cursor)
    return out
  }

  it('has about sixty orders over ninety days whose amounts add up', async () => {
    const list = await all('/api/v1/orders', 'orders:read')
    expect(list.length).toBeGreaterThanOrEqual(50)
    expect(list.length).toBeLessThanOrEqual(75)
    const now = Date.now()
    for (const order of list) {
      const lines = order.items.reduce((a: number, i: Json) => a + i.total.amount, 0)
      const gross = order.items.reduce(
        (a: number, i: Json) => a + i.unit_price.amount * i.quantity,
        0,
      )
      const off = order.items.reduce((a: number, i: Json) => a + i.discount.amount, 0)
      // Lines are before tax: total = lines + tax.
      expect(order.total.amount, order.number).toBe(lines + order.tax_total.amount)
      expect(order.subtotal.amount, order.number).toBe(gross)
      expect(order.discount_total.amount, order.number).toBe(off)
      expect(order.total.amount).toBe(
        order.subtotal.amount - order.discount_total.amount + order.tax_total.amount,
      )
      const refunded = order.refunds.reduce((a: number, r: Json) => a + r.amount.amount, 0)
      expect(order.amount_refunded.amount, order.number).toBe(refunded)
      expect(now - Date.parse(order.created_at)).toBeLessThanOrEqual(91 * DAY)
      if (order.status === 'free') expect(order.total.amount).toBe(0)
      if (order.status === 'refunded') expect(refunded).toBe(order.total.amount)
      if (order.status === 'partially_refunded') {
        expect(refunded).toBeGreaterThan(0)
        expect(refunded).toBeLessThan(order.total.amount)
      }
      if (['paid', 'refunded', 'partially_refunded'].includes(order.status))
        expect(order.paid_at).not.toBeNull()
    }
    const count = (status: string) => list.filter((o) => o.status === status).length
    expect(count('refunded')).toBe(1)
    // The course order refunded for one line, and the taxed order of the money rules.
    expect(count('partially_refunded')).toBe(2)
    expect(count('failed')).toBe(2)
    expect(count('expired')).toBe(1)
    expect(count('free')).toBe(3)
    expect(new Set(list.map((o) => o.payment.provider))).toEqual(
      new Set(['stripe', 'paypal', 'manual']),
    )
    expect(new Set(list.flatMap((o) => o.items.map((i: Json) => i.product_type)))).toEqual(
      new Set(['course', 'membership_plan', 'digital_product', 'event_ticket']),
    )
    expect(list.map((o) => o.number).sort()[0]).toBe('1001')
    // The trend: more paid orders in the last thirty days than in the first thirty.
    const paid = list.filter((o) => o.paid_at && o.status !== 'free')
    const age = (o: Json) => (now - Date.parse(o.paid_at)) / DAY
    expect(paid.filter((o) => age(o) < 30).length).toBeGreaterThan(
      paid.filter((o) => age(o) >= 60).length,
    )
  })

  it('counts each coupon redeemed exactly by its orders, with every status present', async () => {
    const orderList = await all('/api/v1/orders', 'orders:read')
    const coupons = await all('/api/v1/coupons', 'coupons:read')
    expect(new Set(coupons.map((c) => c.status))).toEqual(
      new Set(['active', 'scheduled', 'expired', 'exhausted', 'disabled']),
    )
    for (const coupon of coupons) {
      const redeemed = orderList.filter(
        (o) =>
          o.coupon?.id === coupon.id &&
          ['paid', 'partially_refunded', 'refunded', 'free'].includes(o.status),
      )
      expect(coupon.times_redeemed, coupon.code).toBe(redeemed.length)
      const revenue = redeemed
        .filter((o) => o.status !== 'free')
        .reduce((a, o) => a + o.total.amount - o.amount_refunded.amount, 0)
      // Every coupon-redeeming demo order is in dollars (the EUR order uses none).
      expect(coupon.revenue_attributed, coupon.code).toContainEqual({
        amount: revenue,
        currency: 'USD',
      })
      if (coupon.max_redemptions !== null)
        expect(coupon.times_redeemed).toBeLessThanOrEqual(coupon.max_redemptions)
    }
    const byCode = Object.fromEntries(coupons.map((c) => [c.code, c]))
    expect(byCode.FRIEND20).toMatchObject({ times_redeemed: 12, status: 'active' })
    expect(byCode.VIPFREE).toMatchObject({ times_redeemed: 1, status: 'exhausted' })
    expect(byCode.SUMMER30).toMatchObject({ times_redeemed: 0, status: 'scheduled' })
    expect(byCode.BLACKFRIDAY.status).toBe('expired')
    for (const code of ['WELCOME10', 'SPRING25'])
      expect(byCode[code].times_redeemed, code).toBeGreaterThan(0)
  })

  it('links every purchase record to its order', async () => {
    const db = demo().deps.database.db as Db
    const purchases = await db
      .selectFrom('event_attendees')
      .innerJoin('event_tickets', 'event_tickets.id', 'event_attendees.ticket_id')
      .select(['event_attendees.id', 'event_attendees.order_id'])
      .where('event_attendees.source', '=', 'purchase')
      .where('event_tickets.price_amount', '>', 0)
      .execute()
    for (const attendee of purchases) expect(attendee.order_id, attendee.id).not.toBeNull()
    const subs = await db
      .selectFrom('subscriptions')
      .select(['id', 'status', 'latest_order_id'])
      .where('source', '=', 'checkout')
      .where('status', '<>', 'trialing')
      .execute()
    for (const sub of subs) expect(sub.latest_order_id, sub.id).not.toBeNull()
    const paidEnrollments = await db
      .selectFrom('enrollments')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('source', '=', 'purchase')
      .executeTakeFirst()
    const courseLines = await db
      .selectFrom('order_items')
      .innerJoin('orders', 'orders.id', 'order_items.order_id')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('order_items.product_type', '=', 'course')
      .where('orders.status', '<>', 'expired')
      .executeTakeFirst()
    expect(Number(courseLines?.n)).toBe(Number(paidEnrollments?.n))
  })
})
