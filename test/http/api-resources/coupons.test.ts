import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { coupons } from '../../../src/api/commerce/coupons.resource.js'
import type { Db } from '../../../src/storage/schema.js'
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

const SCOPE = 'coupons:read coupons:write'
const DAY = 86_400_000
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z')
let serial = 0
const code = (stem: string) => `${stem}_${++serial}`

async function writer() {
  const { accessToken } = await issue(server, { role: 'editor', scope: SCOPE })
  return apiClient(server, accessToken)
}

async function create(body: Json): Promise<Json> {
  const response = await (await writer())('/api/v1/coupons', { method: 'POST', json: body })
  const json = await readJson(response)
  expect(response.status, JSON.stringify(json)).toBe(201)
  return json
}

/** An order that redeemed the coupon, straight into the database (orders are read only). */
async function redeem(couponId: string, status = 'paid', total = 5000): Promise<void> {
  const db = server.deps.database.db as Db
  const n = ++serial
  const now = Date.now()
  await db
    .insertInto('orders')
    .values({
      id: `ord_cpntest_${n}`,
      number: `C${n}`,
      status: status as 'paid',
      student_id: null,
      customer_email: `buyer${n}@example.com`,
      customer_name: null,
      currency: 'USD',
      subtotal: total + 1000,
      discount_total: 1000,
      tax_total: 0,
      total,
      amount_refunded: 0,
      coupon_id: couponId,
      coupon_code: null,
      payment: JSON.stringify({ provider: 'stripe', method: 'card', provider_reference: null }),
      subscription_id: null,
      source: 'checkout',
      paid_at: status === 'paid' ? now : null,
      created_at: now,
      updated_at: now,
    })
    .execute()
}

const percent = (percent_off: number) => ({ type: 'percent', percent_off })

describe('/api/v1/coupons: the conventions', () => {
  checkConventions(() => server, {
    resource: coupons,
    sample: (n) => ({ code: `conv-${n}-${serial++}`, discount: percent(10) }),
    update: { name: 'Spring campaign' },
    invalid: { body: { discount: { type: 'percent' } }, field: 'discount' },
    deniedRole: 'teaching_assistant',
  })
})

describe('/api/v1/coupons: its own rules', () => {
  it('stores codes upper-case, unique whatever the case, and finds them by ?code in any case', async () => {
    const call = await writer()
    const stem = code('welcome')
    const made = await create({ code: stem.toLowerCase(), discount: percent(10) })
    expect(made).toMatchObject({
      code: stem.toUpperCase(),
      status: 'active',
      times_redeemed: 0,
      revenue_attributed: [{ amount: 0, currency: 'USD' }],
      applies_to: { type: 'all', products: [] },
      duration: { type: 'once' },
      enabled: true,
    })
    const again = await call('/api/v1/coupons', {
      method: 'POST',
      json: { code: stem.toUpperCase(), discount: percent(20) },
    })
    expect(again.status).toBe(422)
    expect((await readJson(again)).errors[0]).toMatchObject({ field: 'code', code: 'taken' })
    const found = await readJson(await call(`/api/v1/coupons?code=${stem.toLowerCase()}`))
    expect(found.data.map((c: Json) => c.id)).toEqual([made.id])
    const bad = await call('/api/v1/coupons', {
      method: 'POST',
      json: { code: 'no spaces!', discount: percent(10) },
    })
    expect((await readJson(bad)).errors[0].field).toBe('code')
  })

  it('checks the discount, currency, products and window, naming the field', async () => {
    const call = await writer()
    const cases: Array<[Json, string]> = [
      [{ discount: { type: 'percent', percent_off: 101 } }, 'discount.percent_off'],
      [{ discount: { type: 'percent', percent_off: 0 } }, 'discount.percent_off'],
      [{ discount: { type: 'fixed_amount' } }, 'discount.amount_off'],
      [
        {
          discount: { type: 'percent', percent_off: 5, amount_off: { amount: 5, currency: 'USD' } },
        },
        'discount.amount_off',
      ],
      [
        { discount: { type: 'fixed_amount', amount_off: { amount: 500, currency: 'EUR' } } },
        'discount.amount_off.currency',
      ],
      [
        { discount: percent(5), min_order_amount: { amount: 500, currency: 'EUR' } },
        'min_order_amount.currency',
      ],
      [
        { discount: percent(5), applies_to: { type: 'products', products: [] } },
        'applies_to.products',
      ],
      [
        {
          discount: percent(5),
          applies_to: { type: 'products', products: [{ type: 'course', id: 'crs_missing' }] },
        },
        'applies_to.products[0].id',
      ],
      [
        { discount: percent(5), starts_at: iso(Date.now()), expires_at: iso(Date.now() - DAY) },
        'expires_at',
      ],
      [{ discount: percent(5), duration: { type: 'repeating' } }, 'duration.months'],
    ]
    for (const [body, field] of cases) {
      const response = await call('/api/v1/coupons', {
        method: 'POST',
        json: { code: code('CHECK'), ...body },
      })
      const problem = await readJson(response)
      expect(response.status, JSON.stringify(body)).toBe(422)
      expect(problem.code).toBe('validation_failed')
      expect(
        problem.errors.map((e: Json) => e.field),
        JSON.stringify(problem),
      ).toContain(field)
    }
    // A fixed amount in the school currency, and a window, are fine.
    const fixed = await create({
      code: code('FIXED'),
      discount: { type: 'fixed_amount', amount_off: { amount: 2000, currency: 'USD' } },
      min_order_amount: { amount: 6000, currency: 'USD' },
      starts_at: iso(Date.now() - DAY),
      expires_at: iso(Date.now() + DAY),
    })
    expect(fixed.discount).toEqual({
      type: 'fixed_amount',
      amount_off: { amount: 2000, currency: 'USD' },
    })
  })

  it('derives each status, in the object and as a list filter', async () => {
    const call = await writer()
    const now = Date.now()
    const made = {
      active: await create({ code: code('ACTIVE'), discount: percent(10) }),
      scheduled: await create({
        code: code('LATER'),
        discount: percent(10),
        starts_at: iso(now + 10 * DAY),
      }),
      expired: await create({
        code: code('PAST'),
        discount: percent(10),
        starts_at: iso(now - 10 * DAY),
        expires_at: iso(now - DAY),
      }),
      exhausted: await create({ code: code('ONCE'), discount: percent(100), max_redemptions: 1 }),
      disabled: await create({ code: code('OFF'), discount: percent(10) }),
    }
    await redeem(made.exhausted.id, 'free', 0)
    const off = await call(`/api/v1/coupons/${made.disabled.id}/disable`, { method: 'POST' })
    expect((await readJson(off)).status).toBe('disabled')
    for (const [status, coupon] of Object.entries(made)) {
      expect((await readJson(await call(`/api/v1/coupons/${coupon.id}`))).status).toBe(status)
      const list = await readJson(await call(`/api/v1/coupons?status=${status}&limit=100`))
      expect(list.data.map((c: Json) => c.id)).toContain(coupon.id)
      for (const other of list.data) expect(other.status).toBe(status)
      expect(list.total_count).toBe(list.data.length)
    }
    const on = await call(`/api/v1/coupons/${made.disabled.id}/enable`, { method: 'POST' })
    expect((await readJson(on)).status).toBe('active')
    const bad = await call('/api/v1/coupons?status=sleeping')
    expect(bad.status).toBe(400)
  })

  it('freezes code and discount after the first redemption; other fields stay editable', async () => {
    const call = await writer()
    const coupon = await create({ code: code('FREEZE'), discount: percent(15) })
    const path = `/api/v1/coupons/${coupon.id}`
    // Before any redemption everything may change.
    const renamed = await call(path, { method: 'PATCH', json: { code: `${coupon.code}B` } })
    expect(renamed.status).toBe(200)
    await redeem(coupon.id, 'paid', 8500)
    for (const [json, field] of [
      [{ code: 'SOMETHING_ELSE' }, 'code'],
      [{ discount: percent(20) }, 'discount'],
      [
        { discount: { type: 'fixed_amount', amount_off: { amount: 500, currency: 'USD' } } },
        'discount',
      ],
    ] as const) {
      const response = await call(path, { method: 'PATCH', json })
      const problem = await readJson(response)
      expect(response.status).toBe(409)
      expect(problem.code).toBe('conflict')
      expect(problem.errors.map((e: Json) => e.field)).toEqual([field])
    }
    // The same values again, and the other fields, are accepted.
    const same = await call(path, {
      method: 'PATCH',
      json: { code: `${coupon.code}B`, discount: percent(15), name: 'Still editable' },
    })
    expect(same.status).toBe(200)
    const body = await readJson(await call(path))
    expect(body).toMatchObject({
      code: `${coupon.code}B`,
      name: 'Still editable',
      times_redeemed: 1,
      revenue_attributed: [{ amount: 8500, currency: 'USD' }],
    })
  })

  it('deletes a coupon no order names; refuses (409, disable instead) once one does', async () => {
    const call = await writer()
    const unused = await create({ code: code('UNUSED'), discount: percent(5) })
    expect((await call(`/api/v1/coupons/${unused.id}`, { method: 'DELETE' })).status).toBe(204)
    expect((await call(`/api/v1/coupons/${unused.id}`)).status).toBe(404)
    // A failed (or pending) order does not redeem the coupon, but its record keeps it.
    const attempted = await create({ code: code('TRIED'), discount: percent(5) })
    await redeem(attempted.id, 'failed', 0)
    expect((await readJson(await call(`/api/v1/coupons/${attempted.id}`))).times_redeemed).toBe(0)
    const used = await create({ code: code('USED'), discount: percent(5) })
    await redeem(used.id)
    for (const coupon of [attempted, used]) {
      const refused = await call(`/api/v1/coupons/${coupon.id}`, { method: 'DELETE' })
      expect(refused.status).toBe(409)
      expect((await readJson(refused)).detail).toMatch(/disable/)
      expect((await call(`/api/v1/coupons/${coupon.id}`)).status).toBe(200)
    }
  })

  it('counts redemptions and net revenue from orders, and filters by product', async () => {
    const call = await writer()
    const now = Date.now()
    const course = await readJson(
      await (
        await issue(server, { role: 'editor', scope: 'courses:write courses:read' }).then((t) =>
          apiClient(server, t.accessToken),
        )
      )('/api/v1/courses', {
        method: 'POST',
        json: {
          title: 'Coupon test course',
          pricing_plans: [
            { name: 'Full', type: 'one_time', price: { amount: 4900, currency: 'USD' } },
          ],
        },
      }),
    )
    const only = await create({
      code: code('ONLYCOURSE'),
      discount: percent(25),
      applies_to: { type: 'products', products: [{ type: 'course', id: course.id }] },
    })
    await redeem(only.id, 'paid', 3000)
    await redeem(only.id, 'free', 0)
    await redeem(only.id, 'pending', 3000)
    await (server.deps.database.db as Db)
      .insertInto('orders')
      .values({
        id: 'ord_cpntest_refunded',
        number: 'C-R',
        status: 'partially_refunded',
        student_id: null,
        customer_email: 'r@example.com',
        customer_name: null,
        currency: 'USD',
        subtotal: 4000,
        discount_total: 1000,
        tax_total: 0,
        total: 3000,
        amount_refunded: 1000,
        coupon_id: only.id,
        coupon_code: only.code,
        payment: '{"provider":"paypal","method":"wallet","provider_reference":null}',
        subscription_id: null,
        source: 'checkout',
        paid_at: now,
        created_at: now,
        updated_at: now,
      })
      .execute()
    // The refunds themselves are the source of truth (amount_refunded is their sum).
    await (server.deps.database.db as Db)
      .insertInto('refunds')
      .values({
        id: 'rfd_cpntest_refunded',
        order_id: 'ord_cpntest_refunded',
        amount: 1000,
        reason: null,
        created_at: now,
      })
      .execute()
    const body = await readJson(await call(`/api/v1/coupons/${only.id}`))
    expect(body.times_redeemed).toBe(3)
    expect(body.revenue_attributed).toEqual([{ amount: 5000, currency: 'USD' }])
    const forCourse = await readJson(
      await call(`/api/v1/coupons?applies_to_product_id=${course.id}&limit=100`),
    )
    const ids = forCourse.data.map((c: Json) => c.id)
    expect(ids).toContain(only.id)
    for (const c of forCourse.data)
      expect(
        c.applies_to.type === 'all' || c.applies_to.products.some((p: Json) => p.id === course.id),
      ).toBe(true)
    const other = await readJson(
      await call('/api/v1/coupons?applies_to_product_id=crs_other&limit=100'),
    )
    expect(other.data.map((c: Json) => c.id)).not.toContain(only.id)
    const search = await readJson(await call(`/api/v1/coupons?q=${only.code.toLowerCase()}`))
    expect(search.data.map((c: Json) => c.id)).toEqual([only.id])
  })

  it('has no public projection: codes are secrets', async () => {
    const coupon = await create({ code: code('SECRET'), discount: percent(5) })
    expect((await server.fetch(`/api/v1/coupons/${coupon.id}`)).status).toBe(401)
    expect((await server.fetch(`/api/v1/coupons?code=${coupon.code}`)).status).toBe(401)
  })
})
