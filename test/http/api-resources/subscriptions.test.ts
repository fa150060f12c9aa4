import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { subscriptions } from '../../../src/api/memberships/subscriptions.resource.js'
import { useDemoServer } from '../../support/demo.js'
import { type Json, readJson } from '../../support/http.js'
import { startTestServer, type TestServer } from '../../support/server.js'
import { issue } from '../../support/token-lifecycle.js'
import { apiClient, checkConventions } from './conventions.js'
import { DAY, insertStudents, insertSubscription } from './membership-fixtures.js'

let server: TestServer
let students: string[] = []
/** An active plan with a monthly price, and a draft and an archived plan. */
let active: Json
let draft: Json
let archived: Json
/** The convention checks grant one subscription per student: they use students 20 and up. */
const FREE_STUDENT = 20

const SCOPE = 'subscriptions:read subscriptions:write'
const usd = (amount: number) => ({ amount, currency: 'USD' })
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z')

async function owner(scope = SCOPE) {
  const { accessToken } = await issue(server, { role: 'owner', scope })
  return apiClient(server, accessToken)
}

async function makePlan(name: string, finish?: 'publish' | 'archive'): Promise<Json> {
  const call = await owner('membership_plans:read membership_plans:write')
  const made = await readJson(
    await call('/api/v1/membership_plans', {
      method: 'POST',
      json: {
        name,
        billing_type: 'recurring',
        prices: [
          { amount: usd(1900), interval: 'month', trial_days: 7 },
          { amount: usd(19000), interval: 'year' },
        ],
      },
    }),
  )
  if (finish === 'publish' || finish === 'archive')
    await call(`/api/v1/membership_plans/${made.id}/publish`, { method: 'POST' })
  if (finish === 'archive')
    await call(`/api/v1/membership_plans/${made.id}/archive`, { method: 'POST' })
  return readJson(await call(`/api/v1/membership_plans/${made.id}`))
}

beforeAll(async () => {
  server = await startTestServer()
  students = await insertStudents(server, 'subs', 80)
  active = await makePlan('Active plan', 'publish')
  draft = await makePlan('Draft plan')
  archived = await makePlan('Archived plan', 'archive')
})
afterAll(async () => {
  await server?.close()
})

const student = (n: number) => students[n] as string
/** A paid subscription on the active plan's monthly price, as checkout makes it. */
const paid = (id: string, n: number, extra: Json = {}) =>
  insertSubscription(server, {
    id,
    student_id: student(n),
    plan_id: active.id,
    price_id: active.prices[0].id,
    ...extra,
  })

describe('/api/v1/subscriptions: the conventions', () => {
  checkConventions(() => server, {
    resource: subscriptions,
    sample: (n) => ({ student_id: student(FREE_STUDENT + n), plan_id: active.id }),
    update: { ends_at: iso(Date.now() + 30 * DAY) },
    invalid: { body: { ends_at: 'next week' }, field: 'ends_at' },
    deniedRole: 'editor',
  })
})

describe('/api/v1/subscriptions: its own rules', () => {
  it('grants a manual subscription: no charge, no renewal, the plan’s first active price', async () => {
    const call = await owner()
    const endsAt = iso(Date.now() + 90 * DAY)
    const response = await call('/api/v1/subscriptions', {
      method: 'POST',
      json: { student_id: student(0), plan_id: active.id, ends_at: endsAt },
    })
    expect(response.status).toBe(201)
    const granted = await readJson(response)
    expect(granted).toMatchObject({
      object: 'subscription',
      source: 'manual',
      status: 'active',
      price_id: active.prices[0].id,
      amount: usd(0),
      interval: null,
      current_period_end: endsAt,
      ends_at: endsAt,
      next_charge_at: null,
      cancel_at_period_end: false,
      latest_order_id: null,
    })
    // A second live subscription to the same plan is refused.
    const twice = await call('/api/v1/subscriptions', {
      method: 'POST',
      json: { student_id: student(0), plan_id: active.id },
    })
    expect(twice.status).toBe(409)
    // A chosen price must be an active price of the plan.
    const yearly = await readJson(
      await call('/api/v1/subscriptions', {
        method: 'POST',
        json: { student_id: student(1), plan_id: active.id, price_id: active.prices[1].id },
      }),
    )
    expect(yearly).toMatchObject({ price_id: active.prices[1].id, ends_at: null })
  })

  it('refuses a grant on a draft or archived plan, for an unknown student or price', async () => {
    const call = await owner()
    const grant = (json: Json) => call('/api/v1/subscriptions', { method: 'POST', json })
    for (const plan of [draft, archived]) {
      const response = await grant({ student_id: student(2), plan_id: plan.id })
      expect(response.status).toBe(409)
      expect(await readJson(response)).toMatchObject({ code: 'conflict' })
    }
    const cases: Array<[Json, string]> = [
      [{ student_id: 'stu_nobody', plan_id: active.id }, 'student_id'],
      [{ student_id: student(2), plan_id: 'mpl_nothing' }, 'plan_id'],
      [{ student_id: student(2), plan_id: active.id, price_id: draft.prices[0].id }, 'price_id'],
      [{ student_id: student(2), plan_id: active.id, ends_at: iso(Date.now() - DAY) }, 'ends_at'],
      [{ plan_id: active.id }, 'student_id'],
      [{ student_id: student(2), plan_id: active.id, status: 'active' }, 'status'],
    ]
    for (const [json, field] of cases) {
      const response = await grant(json)
      expect(response.status, field).toBe(422)
      const body = await readJson(response)
      expect(body.errors.map((e: Json) => e.field)).toContain(field)
    }
    const none = await readJson(await call(`/api/v1/subscriptions?student_id=${student(2)}`))
    expect(none.total_count).toBe(0)
  })

  it('cancels at period end first, and ends the subscription on a second cancel', async () => {
    const call = await owner()
    const id = await paid('sub_cancel_twice', 3)
    const before = await readJson(await call(`/api/v1/subscriptions/${id}`))
    expect(before.next_charge_at).toBe(before.current_period_end)
    expect(before.ends_at).toBeNull()

    const first = await call(`/api/v1/subscriptions/${id}/cancel`, {
      method: 'POST',
      json: { reason: 'Too busy' },
    })
    expect(first.status).toBe(200)
    const cancelling = await readJson(first)
    expect(cancelling).toMatchObject({
      status: 'active',
      cancel_at_period_end: true,
      cancellation_reason: 'Too busy',
      next_charge_at: null,
      ended_at: null,
      ends_at: before.current_period_end,
    })
    expect(cancelling.canceled_at).toMatch(/Z$/)

    const second = await readJson(
      await call(`/api/v1/subscriptions/${id}/cancel`, { method: 'POST' }),
    )
    expect(second).toMatchObject({
      status: 'canceled',
      cancel_at_period_end: false,
      cancellation_reason: 'Too busy',
      canceled_at: cancelling.canceled_at,
      next_charge_at: null,
    })
    expect(second.ended_at).toMatch(/Z$/)
    const third = await call(`/api/v1/subscriptions/${id}/cancel`, { method: 'POST' })
    expect(third.status).toBe(409)

    // at_period_end false ends it at once.
    const other = await paid('sub_cancel_now', 4)
    const now = await readJson(
      await call(`/api/v1/subscriptions/${other}/cancel`, {
        method: 'POST',
        json: { at_period_end: false },
      }),
    )
    expect(now).toMatchObject({ status: 'canceled', cancel_at_period_end: false })
    const bad = await call(`/api/v1/subscriptions/${other}/cancel`, {
      method: 'POST',
      json: { at_period_end: 'soon' },
    })
    expect(bad.status).toBe(422)
  })

  it('resumes only while cancelling at period end', async () => {
    const call = await owner()
    const id = await paid('sub_resume', 5)
    const early = await call(`/api/v1/subscriptions/${id}/resume`, { method: 'POST' })
    expect(early.status).toBe(409)
    await call(`/api/v1/subscriptions/${id}/cancel`, { method: 'POST' })
    const resumed = await readJson(
      await call(`/api/v1/subscriptions/${id}/resume`, { method: 'POST' }),
    )
    expect(resumed).toMatchObject({
      status: 'active',
      cancel_at_period_end: false,
      canceled_at: null,
      cancellation_reason: null,
    })
    expect(resumed.next_charge_at).toBe(resumed.current_period_end)
    await call(`/api/v1/subscriptions/${id}/cancel`, {
      method: 'POST',
      json: { at_period_end: false },
    })
    const ended = await call(`/api/v1/subscriptions/${id}/resume`, { method: 'POST' })
    expect(ended.status).toBe(409)
  })

  it('changes the end of manual grants only, and not while cancelling', async () => {
    const call = await owner()
    const later = iso(Date.now() + 200 * DAY)
    const checkout = await paid('sub_patch_paid', 6)
    const refused = await call(`/api/v1/subscriptions/${checkout}`, {
      method: 'PATCH',
      json: { current_period_end: later },
    })
    expect(refused.status).toBe(409)

    const grant = await readJson(
      await call('/api/v1/subscriptions', {
        method: 'POST',
        json: { student_id: student(7), plan_id: active.id, ends_at: iso(Date.now() + DAY) },
      }),
    )
    const moved = await call(`/api/v1/subscriptions/${grant.id}`, {
      method: 'PATCH',
      json: { ends_at: later },
    })
    expect(await readJson(moved)).toMatchObject({ current_period_end: later, ends_at: later })
    const both = await call(`/api/v1/subscriptions/${grant.id}`, {
      method: 'PATCH',
      json: { ends_at: later, current_period_end: iso(Date.now() + 3 * DAY) },
    })
    expect(both.status).toBe(422)
    const immutable = await call(`/api/v1/subscriptions/${grant.id}`, {
      method: 'PATCH',
      json: { plan_id: archived.id },
    })
    expect((await readJson(immutable)).errors[0]).toMatchObject({
      field: 'plan_id',
      code: 'read_only',
    })

    await call(`/api/v1/subscriptions/${grant.id}/cancel`, { method: 'POST' })
    const cancelling = await call(`/api/v1/subscriptions/${grant.id}`, {
      method: 'PATCH',
      json: { ends_at: iso(Date.now() + 300 * DAY) },
    })
    expect(cancelling.status).toBe(409)
    expect((await readJson(cancelling)).detail).toContain('resume')
  })

  it('filters by status, plan, cancelling and renewal date; never deletes', async () => {
    const call = await owner()
    const soon = Date.now() + 2 * DAY
    await paid('sub_filter_soon', 8, { current_period_end: soon })
    await paid('sub_filter_late', 9, { current_period_end: Date.now() + 40 * DAY })
    await paid('sub_filter_past_due', 10, { status: 'past_due', current_period_end: soon })
    await paid('sub_filter_cancelling', 11, { cancel_at_period_end: 1, current_period_end: soon })
    await paid('sub_filter_trial', 12, {
      status: 'trialing',
      trial_ends_at: soon,
      current_period_end: soon,
    })
    const ids = async (query: string) =>
      (await readJson(await call(`/api/v1/subscriptions?limit=100&${query}`))).data.map(
        (s: Json) => s.id,
      )
    const renewing = await ids(`renews_before=${iso(Date.now() + 7 * DAY)}`)
    expect(renewing.filter((id: string) => id.startsWith('sub_filter_')).sort()).toEqual([
      'sub_filter_past_due',
      'sub_filter_soon',
      'sub_filter_trial',
    ])
    expect(await ids('status=past_due')).toEqual(['sub_filter_past_due'])
    expect(await ids('cancel_at_period_end=true')).toContain('sub_filter_cancelling')
    expect(await ids('status=trialing')).toEqual(['sub_filter_trial'])
    const byPlan = await ids(`plan_id=${draft.id}`)
    expect(byPlan).toEqual([])
    const trial = await readJson(await call('/api/v1/subscriptions/sub_filter_trial'))
    expect(trial.next_charge_at).toBe(iso(soon))

    const removed = await call('/api/v1/subscriptions/sub_filter_soon', { method: 'DELETE' })
    expect([404, 405]).toContain(removed.status)
    expect((await call('/api/v1/subscriptions/sub_filter_soon')).status).toBe(200)
    // Teaching assistants read subscriptions but may not write them.
    const { accessToken } = await issue(server, {
      role: 'teaching_assistant',
      scope: 'subscriptions:read',
    })
    expect((await apiClient(server, accessToken)('/api/v1/subscriptions')).status).toBe(200)
  })
})

describe('the demo school’s memberships', () => {
  const demo = useDemoServer()

  it('has subscriptions in every state, paid ones keeping their price', async () => {
    const { accessToken } = await issue(demo(), {
      role: 'owner',
      scope: 'subscriptions:read membership_plans:read',
    })
    const call = apiClient(demo(), accessToken)
    const subs = (await readJson(await call('/api/v1/subscriptions?limit=100'))).data as Json[]
    const count = (test: (s: Json) => boolean) => subs.filter(test).length
    // One in trial, one whose trial ended without a payment (still marked trialing).
    expect(count((s) => s.status === 'trialing')).toBe(2)
    expect(count((s) => s.status === 'past_due')).toBe(1)
    expect(count((s) => s.status === 'expired')).toBe(1)
    expect(count((s) => s.cancel_at_period_end)).toBe(1)
    expect(count((s) => s.source === 'manual' && s.amount.amount === 0)).toBe(1)
    const renewing = subs.filter(
      (s) => s.status === 'active' && !s.cancel_at_period_end && s.next_charge_at !== null,
    )
    expect(renewing.map((s) => s.interval).sort()).toEqual(['month', 'month', 'year', 'year'])
    const founder = subs.find((s) => s.plan_id === 'mpl_demo_founders_lifetime')
    expect(founder).toMatchObject({ status: 'active', next_charge_at: null, ends_at: null })
    const legacy = subs.find(
      (s) => s.price_id === 'mpp_demo_studio_monthly_legacy' && s.status === 'active',
    )
    expect(legacy?.amount).toEqual(usd(1500))
    for (const s of subs) {
      expect(Date.parse(s.current_period_start)).toBeGreaterThanOrEqual(Date.parse(s.started_at))
      if (s.current_period_end)
        expect(Date.parse(s.current_period_end)).toBeGreaterThan(Date.parse(s.current_period_start))
    }

    const plans = (await readJson(await call('/api/v1/membership_plans'))).data as Json[]
    expect(plans.map((p) => [p.id, p.status, p.billing_type])).toEqual([
      ['mpl_demo_studio_pass', 'active', 'recurring'],
      ['mpl_demo_founders_lifetime', 'archived', 'lifetime'],
      ['mpl_demo_summer_bootcamp', 'draft', 'fixed_term'],
    ])
    const studio = plans[0] as Json
    expect(studio.prices.filter((p: Json) => !p.active).map((p: Json) => p.id)).toEqual([
      'mpp_demo_studio_monthly_legacy',
    ])
    // The lapsed trial is not in trial any more: only one counts as trialing.
    expect(studio.stats.trialing).toBe(1)
    const publicList = await readJson(await demo().fetch('/api/v1/membership_plans'))
    expect(publicList.data.map((p: Json) => p.id)).toEqual(['mpl_demo_studio_pass'])
    expect(publicList.data[0].prices.map((p: Json) => p.id).sort()).toEqual([
      'mpp_demo_studio_monthly',
      'mpp_demo_studio_yearly',
    ])
  })
})
