import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ResourceDb } from '../../../src/api/framework/store.js'
import { membershipPlans } from '../../../src/api/memberships/membership-plans.resource.js'
import type { OrderProductType, OrderStatus } from '../../../src/storage/tables/commerce.js'
import { type Json, readJson } from '../../support/http.js'
import { startTestServer, type TestServer } from '../../support/server.js'
import { issue } from '../../support/token-lifecycle.js'
import { apiClient, checkConventions } from './conventions.js'
import { insertStudents, insertSubscription } from './membership-fixtures.js'

let server: TestServer
let students: string[] = []
beforeAll(async () => {
  server = await startTestServer()
  students = await insertStudents(server, 'plans', 10)
})
afterAll(async () => {
  await server?.close()
})

const SCOPE = 'membership_plans:read membership_plans:write subscriptions:read'
const usd = (amount: number) => ({ amount, currency: 'USD' })
const monthly = (amount: number, extra: Json = {}) => ({
  amount: usd(amount),
  interval: 'month',
  ...extra,
})
const sample = (n: number) => ({
  name: `Plan ${n}`,
  billing_type: 'recurring',
  prices: [monthly(1900, { trial_days: 7 })],
})

async function writer() {
  const { accessToken } = await issue(server, { role: 'editor', scope: SCOPE })
  return apiClient(server, accessToken)
}
const rawDb = () => server.deps.database.db as unknown as ResourceDb

/** A plan made through the API, published unless told otherwise. */
async function plan(body: Json, publish = true): Promise<Json> {
  const call = await writer()
  const created = await call('/api/v1/membership_plans', { method: 'POST', json: body })
  expect(created.status, JSON.stringify(await created.clone().json())).toBe(201)
  const made = await readJson(created)
  if (!publish) return made
  const published = await call(`/api/v1/membership_plans/${made.id}/publish`, { method: 'POST' })
  expect(published.status).toBe(200)
  return readJson(published)
}

describe('/api/v1/membership_plans: the conventions', () => {
  checkConventions(() => server, {
    resource: membershipPlans,
    sample,
    update: { description: '<p>Now with live events</p>' },
    invalid: { body: { billing_type: 'weekly' }, field: 'billing_type' },
    deniedRole: 'lecturer',
    async makePublic(id, token) {
      const response = await apiClient(server, token)(`/api/v1/membership_plans/${id}/publish`, {
        method: 'POST',
      })
      expect(response.status).toBe(200)
    },
  })
})

describe('/api/v1/membership_plans: its own rules', () => {
  it('changes a price by adding a new one; a subscription keeps its price and amount', async () => {
    const call = await writer()
    const made = await plan({ ...sample(0), name: 'Price change' })
    const old = made.prices[0]
    expect(old).toMatchObject({ id: expect.stringMatching(/^mpp_/), active: true, trial_days: 7 })
    const sub = await insertSubscription(server, {
      id: 'sub_keeps_price',
      student_id: students[0] as string,
      plan_id: made.id,
      price_id: old.id,
      amount: 1900,
    })

    // An existing price may not change its amount: that is a new price.
    const refused = await call(`/api/v1/membership_plans/${made.id}`, {
      method: 'PATCH',
      json: { prices: [{ id: old.id, amount: usd(2500) }] },
    })
    expect(refused.status).toBe(422)
    expect((await readJson(refused)).errors[0]).toMatchObject({
      field: 'prices[0].amount',
      code: 'immutable',
    })
    const unknown = await call(`/api/v1/membership_plans/${made.id}`, {
      method: 'PATCH',
      json: { prices: [{ id: 'mpp_nope', active: true }] },
    })
    expect((await readJson(unknown)).errors[0]).toMatchObject({ field: 'prices[0].id' })

    // Sending the prices back as read changes nothing.
    const same = await call(`/api/v1/membership_plans/${made.id}`, {
      method: 'PATCH',
      json: { prices: made.prices.map(({ created_at: _, ...p }: Json) => p) },
    })
    expect(same.status).toBe(200)
    expect((await readJson(same)).prices).toEqual(made.prices)

    const changed = await call(`/api/v1/membership_plans/${made.id}`, {
      method: 'PATCH',
      json: { prices: [monthly(2500, { trial_days: 7 })] },
    })
    expect(changed.status).toBe(200)
    const after = await readJson(changed)
    expect(after.prices).toHaveLength(2)
    const fresh = after.prices.find((p: Json) => p.id !== old.id)
    expect(fresh).toMatchObject({ amount: usd(2500), interval: 'month', active: true })
    expect(fresh.id).toMatch(/^mpp_/)
    expect(after.prices.find((p: Json) => p.id === old.id)).toMatchObject({
      active: false,
      amount: usd(1900),
    })

    // The public sees only the active price.
    const publicView = await readJson(await server.fetch(`/api/v1/membership_plans/${made.slug}`))
    expect(publicView.prices.map((p: Json) => p.id)).toEqual([fresh.id])
    expect(publicView).not.toHaveProperty('stats')

    const { accessToken } = await issue(server, { role: 'owner', scope: 'subscriptions:read' })
    const kept = await readJson(
      await apiClient(server, accessToken)(`/api/v1/subscriptions/${sub}`),
    )
    expect(kept).toMatchObject({ price_id: old.id, amount: usd(1900) })

    // The deactivated price can be offered again, and is still not deleted.
    const again = await call(`/api/v1/membership_plans/${made.id}`, {
      method: 'PATCH',
      json: {
        prices: [
          { id: old.id, active: true },
          { id: fresh.id, active: false },
        ],
      },
    })
    const both = (await readJson(again)).prices
    expect(both.map((p: Json) => [p.id, p.active])).toEqual([
      [old.id, true],
      [fresh.id, false],
    ])
  })

  it('checks prices against the billing type and the school currency', async () => {
    const call = await writer()
    const cases: Array<[Json, string]> = [
      [{ billing_type: 'recurring', prices: [{ amount: usd(100) }] }, 'prices[0].interval'],
      [
        { billing_type: 'recurring', prices: [monthly(100, { access_days: 30 })] },
        'prices[0].access_days',
      ],
      [{ billing_type: 'fixed_term', prices: [{ amount: usd(100) }] }, 'prices[0].access_days'],
      [
        { billing_type: 'fixed_term', prices: [monthly(100, { access_days: 30 })] },
        'prices[0].interval',
      ],
      [
        { billing_type: 'lifetime', prices: [{ amount: usd(100), ends_on: '2030-01-01' }] },
        'prices[0].ends_on',
      ],
      [
        { billing_type: 'lifetime', prices: [{ amount: { amount: 100, currency: 'EUR' } }] },
        'prices[0].amount.currency',
      ],
      [{ billing_type: 'lifetime', prices: [{ amount: usd(-1) }] }, 'prices[0].amount.amount'],
      [{ billing_type: 'lifetime', prices: [{ id: 'mpp_x', amount: usd(1) }] }, 'prices[0].id'],
      [{ billing_type: 'lifetime', includes: { course_ids: ['crs_nope'] } }, 'includes.course_ids'],
    ]
    for (const [body, field] of cases) {
      const response = await call('/api/v1/membership_plans', {
        method: 'POST',
        json: { name: 'Invalid', ...body },
      })
      expect(response.status, field).toBe(422)
      const problem = await readJson(response)
      expect(problem.code).toBe('validation_failed')
      expect(
        problem.errors.map((e: Json) => e.field),
        JSON.stringify(problem.errors),
      ).toContain(field)
    }
    const fixed = await plan({
      name: 'Bootcamp',
      billing_type: 'fixed_term',
      prices: [{ amount: usd(5900), access_days: 60 }],
    })
    expect(fixed.prices[0]).toMatchObject({ access_days: 60, interval: null, trial_days: 0 })
    // The refused writes left no price behind.
    const { count } = (await rawDb()
      .selectFrom('membership_plan_prices')
      .select((eb) => eb.fn.countAll().as('count'))
      .where('amount', '=', 100)
      .executeTakeFirstOrThrow()) as { count: unknown }
    expect(Number(count)).toBe(0)
  })

  it('publishes only with an active price; an active plan keeps one', async () => {
    const call = await writer()
    const draft = await plan({ name: 'No price yet', billing_type: 'lifetime' }, false)
    expect(draft).toMatchObject({ status: 'draft', prices: [] })
    const refused = await call(`/api/v1/membership_plans/${draft.id}/publish`, { method: 'POST' })
    expect(refused.status).toBe(422)
    expect((await readJson(refused)).errors[0].field).toBe('prices')
    await call(`/api/v1/membership_plans/${draft.id}`, {
      method: 'PATCH',
      json: { prices: [{ amount: usd(49900) }] },
    })
    const published = await call(`/api/v1/membership_plans/${draft.id}/publish`, {
      method: 'POST',
    })
    expect((await readJson(published)).status).toBe('active')
    const emptied = await call(`/api/v1/membership_plans/${draft.id}`, {
      method: 'PATCH',
      json: { prices: [] },
    })
    expect(emptied.status).toBe(422)
  })

  it('archives a plan with subscriptions instead of deleting it; deletes an unused one', async () => {
    const call = await writer()
    const used = await plan({ ...sample(0), name: 'Used plan' })
    await insertSubscription(server, {
      id: 'sub_on_used_plan',
      student_id: students[1] as string,
      plan_id: used.id,
      price_id: used.prices[0].id,
    })
    const refused = await call(`/api/v1/membership_plans/${used.id}`, { method: 'DELETE' })
    expect(refused.status).toBe(409)
    expect((await readJson(refused)).detail).toContain('archive')
    const switched = await call(`/api/v1/membership_plans/${used.id}`, {
      method: 'PATCH',
      json: { billing_type: 'lifetime', prices: [{ amount: usd(100) }] },
    })
    expect(switched.status).toBe(409)

    const archived = await call(`/api/v1/membership_plans/${used.id}/archive`, { method: 'POST' })
    expect((await readJson(archived)).status).toBe('archived')
    expect((await server.fetch(`/api/v1/membership_plans/${used.id}`)).status).toBe(404)
    const sub = await rawDb()
      .selectFrom('subscriptions')
      .select('status')
      .where('id', '=', 'sub_on_used_plan')
      .executeTakeFirstOrThrow()
    expect(sub.status).toBe('active')

    const unused = await plan({ ...sample(0), name: 'Unused plan' }, false)
    const switchedUnused = await call(`/api/v1/membership_plans/${unused.id}`, {
      method: 'PATCH',
      json: { billing_type: 'lifetime' },
    })
    expect(switchedUnused.status).toBe(422)
    expect((await readJson(switchedUnused)).errors[0].code).toBe('billing_type')
    const deleted = await call(`/api/v1/membership_plans/${unused.id}`, { method: 'DELETE' })
    expect(deleted.status).toBe(204)
    const prices = await rawDb()
      .selectFrom('membership_plan_prices')
      .select('id')
      .where('plan_id', '=', unused.id)
      .execute()
    expect(prices).toEqual([])
  })

  it('lists active visible plans to the public in position order', async () => {
    const call = await writer()
    const hidden = await plan({ ...sample(0), name: 'Hidden plan', visible: false })
    const first = await plan({ ...sample(0), name: 'First plan', position: 0 })
    expect((await server.fetch(`/api/v1/membership_plans/${hidden.id}`)).status).toBe(404)
    const list = await readJson(await server.fetch('/api/v1/membership_plans?limit=100'))
    const ids = list.data.map((p: Json) => p.id)
    expect(ids).toContain(first.id)
    expect(ids).not.toContain(hidden.id)
    const positions = list.data.map((p: Json) => p.position)
    expect(positions).toEqual([...positions].sort((a, b) => a - b))
    const full = await readJson(await call('/api/v1/membership_plans?status=draft&limit=100'))
    expect(full.data.every((p: Json) => p.status === 'draft')).toBe(true)
  })

  it('computes stats from subscriptions and paid orders minus refunds', async () => {
    const made = await plan({
      name: 'Stats plan',
      billing_type: 'recurring',
      prices: [monthly(1900), { amount: usd(19000), interval: 'year' }],
    })
    const [month, year] = made.prices
    const base = { plan_id: made.id }
    await insertSubscription(server, {
      ...base,
      id: 'sub_stats_1',
      student_id: students[2] as string,
      price_id: month.id,
    })
    await insertSubscription(server, {
      ...base,
      id: 'sub_stats_2',
      student_id: students[3] as string,
      price_id: year.id,
      amount: 19000,
      interval: 'year',
    })
    await insertSubscription(server, {
      ...base,
      id: 'sub_stats_3',
      student_id: students[4] as string,
      price_id: month.id,
      status: 'trialing',
      trial_ends_at: Date.now() + 86_400_000,
    })
    await insertSubscription(server, {
      ...base,
      id: 'sub_stats_4',
      student_id: students[5] as string,
      price_id: month.id,
      status: 'canceled',
    })
    await insertSubscription(server, {
      ...base,
      id: 'sub_stats_5',
      student_id: students[6] as string,
      price_id: month.id,
      source: 'manual',
      amount: 0,
      interval: null,
    })
    const now = Date.now()
    const order = async (
      id: string,
      status: OrderStatus,
      lines: Array<[OrderProductType, string, number]>,
    ) => {
      const total = lines.reduce((n, [, , amount]) => n + amount, 0)
      await rawDb()
        .insertInto('orders')
        .values({
          id,
          number: id,
          status,
          student_id: students[2] as string,
          customer_email: 'buyer@example.com',
          customer_name: null,
          currency: 'USD',
          subtotal: total,
          discount_total: 0,
          tax_total: 0,
          total,
          amount_refunded: 0,
          coupon_id: null,
          coupon_code: null,
          payment: '{}',
          subscription_id: null,
          source: 'checkout',
          paid_at: status === 'failed' ? null : now,
          created_at: now,
          updated_at: now,
        })
        .execute()
      for (const [i, [type, productId, amount]] of lines.entries())
        await rawDb()
          .insertInto('order_items')
          .values({
            id: `oit_${id}_${i}`,
            order_id: id,
            position: i,
            product_type: type,
            product_id: productId,
            price_id: null,
            event_id: null,
            name: 'Line',
            quantity: 1,
            unit_amount: amount,
            discount_amount: 0,
            total_amount: amount,
          })
          .execute()
    }
    await order('ord_stats_a', 'paid', [['membership_plan', made.id, 1900]])
    await order('ord_stats_b', 'partially_refunded', [
      ['membership_plan', made.id, 19000],
      ['digital_product', 'dpr_x', 2400],
    ])
    await order('ord_stats_c', 'failed', [['membership_plan', made.id, 1900]])
    await order('ord_stats_d', 'paid', [['membership_plan', 'mpl_other', 5000]])
    await rawDb()
      .insertInto('refunds')
      .values({
        id: 'rfd_stats',
        order_id: 'ord_stats_b',
        amount: 2140,
        reason: null,
        created_at: now,
      })
      .execute()

    const call = await writer()
    const stats = (await readJson(await call(`/api/v1/membership_plans/${made.id}`))).stats
    // The refund is shared by the order's lines: 2140 × 19000 / 21400 = 1900 for the plan.
    expect(stats).toEqual({
      active_subscriptions: 3,
      trialing: 1,
      mrr: [usd(1900 + Math.round(19000 / 12))],
      total_revenue: [usd(1900 + 19000 - 1900)],
    })
  })
})
