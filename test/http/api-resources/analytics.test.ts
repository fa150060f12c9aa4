import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Db } from '../../../src/storage/schema.js'
import { useDemoServer } from '../../support/demo.js'
import { type Json, readJson } from '../../support/http.js'
import { startTestServer, type TestServer } from '../../support/server.js'
import { issue } from '../../support/token-lifecycle.js'
import { apiClient } from './conventions.js'

const DAY = 86_400_000
const at = (iso: string) => Date.parse(iso)
const usd = (amount: number) => ({ amount, currency: 'USD' })
/** A money figure of the fixture school: USD (the school currency) first, then EUR. */
const m = (dollars: number, euros = 0) => [usd(dollars), { amount: euros, currency: 'EUR' }]

async function problem(response: Response, status: number, code: string): Promise<Json> {
  expect(response.status).toBe(status)
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/)
  const body = await readJson(response)
  expect(body.code).toBe(code)
  return body
}

/**
 * A small school in New York time with known figures. Instants are chosen around midnight:
 * 2026-03-01T04:30Z is still Feb 28 in New York (UTC−5).
 */
async function insertFixture(db: Db): Promise<void> {
  const t = at('2026-01-01T00:00:00Z')
  const school = await db.selectFrom('school').select('id').executeTakeFirst()
  if (school)
    await db
      .updateTable('school')
      .set({ timezone: 'America/New_York', currency: 'USD' })
      .where('id', '=', school.id)
      .execute()
  else
    await db
      .insertInto('school')
      .values({
        id: 'school',
        name: 'Fixture school',
        timezone: 'America/New_York',
        currency: 'USD',
        created_at: t,
        updated_at: t,
      })
      .execute()
  await db
    .insertInto('courses')
    .values({
      id: 'crs_t1',
      title: 'Test course',
      slug: 'test-course',
      subtitle: null,
      description: null,
      cover_image_url: null,
      promo_video_url: null,
      status: 'published',
      visibility: 'public',
      featured: 0,
      category_id: null,
      tags: '[]',
      level: 'beginner',
      language: 'en',
      pricing_plans: '[]',
      enrollment: null,
      certificate_enabled: 0,
      comments_enabled: 0,
      reviews_enabled: 0,
      seo: null,
      published_at: t,
      created_at: t,
      updated_at: t,
    })
    .execute()
  for (const [s, id] of ['sec_t1', 'sec_t2'].entries())
    await db
      .insertInto('sections')
      .values({
        id,
        course_id: 'crs_t1',
        title: id,
        description: null,
        position: s,
        status: 'published',
        drip: null,
        created_at: t,
        updated_at: t,
      })
      .execute()
  // Curriculum order: L1, L2 (section 1), LD (draft), L3 (section 2).
  const lessons: Array<[string, string, number, 'published' | 'draft']> = [
    ['lsn_l3', 'sec_t2', 0, 'published'],
    ['lsn_l1', 'sec_t1', 0, 'published'],
    ['lsn_l2', 'sec_t1', 1, 'published'],
    ['lsn_ld', 'sec_t1', 2, 'draft'],
  ]
  for (const [id, section, position, status] of lessons)
    await db
      .insertInto('lessons')
      .values({
        id,
        course_id: 'crs_t1',
        section_id: section,
        title: id.toUpperCase(),
        type: 'text',
        position,
        status,
        is_free_preview: 0,
        duration_seconds: null,
        body: null,
        video: null,
        attachments: null,
        embed_url: null,
        comments_enabled: 0,
        completion_rule: 'view',
        created_at: t,
        updated_at: t,
      })
      .execute()
  const students: Array<[string, string]> = [
    ['stu_s1', '2026-02-10T12:00:00Z'],
    ['stu_s2', '2026-03-01T04:00:00Z'], // Feb 28 in New York
    ['stu_s3', '2026-03-04T12:00:00Z'],
    ['stu_s4', '2026-03-05T12:00:00Z'],
  ]
  for (const [id, created] of students)
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
        created_at: at(created),
        updated_at: at(created),
      })
      .execute()
  const enrollments: Array<
    [string, string, 'active' | 'completed' | 'revoked', string, string | null]
  > = [
    ['enr_e1', 'stu_s1', 'active', '2026-02-11T12:00:00Z', null],
    ['enr_e2', 'stu_s2', 'active', '2026-03-01T06:00:00Z', null],
    ['enr_e3', 'stu_s3', 'completed', '2026-03-04T13:00:00Z', '2026-03-06T12:00:00Z'],
    ['enr_e4', 'stu_s4', 'revoked', '2026-03-05T13:00:00Z', null],
  ]
  for (const [id, student, status, started, completed] of enrollments)
    await db
      .insertInto('enrollments')
      .values({
        id,
        student_id: student,
        course_id: 'crs_t1',
        pricing_plan_id: null,
        status,
        source: 'purchase',
        started_at: at(started),
        completed_at: completed === null ? null : at(completed),
        expires_at: null,
        created_at: at(started),
        updated_at: at(started),
      })
      .execute()
  const progress: Array<[string, string, string]> = [
    ['enr_e1', 'lsn_l1', '2026-02-12T12:00:00Z'],
    ['enr_e1', 'lsn_l2', '2026-03-02T12:00:00Z'],
    ['enr_e2', 'lsn_l1', '2026-03-02T12:00:00Z'],
    ['enr_e2', 'lsn_ld', '2026-03-02T13:00:00Z'],
    ['enr_e3', 'lsn_l1', '2026-03-05T12:00:00Z'],
    ['enr_e3', 'lsn_l2', '2026-03-05T13:00:00Z'],
    ['enr_e3', 'lsn_l3', '2026-03-06T12:00:00Z'],
    ['enr_e4', 'lsn_l1', '2026-03-05T14:00:00Z'],
  ]
  for (const [enrollment, lesson, when] of progress)
    await db
      .insertInto('lesson_progress')
      .values({ enrollment_id: enrollment, lesson_id: lesson, completed_at: at(when) })
      .execute()

  type Line = [string, string, number, number]
  const orders: Array<{
    id: string
    status: 'paid' | 'refunded' | 'partially_refunded' | 'free' | 'failed' | 'pending'
    student: string | null
    total: number
    currency?: string
    paid: string | null
    lines: Line[]
  }> = [
    // Feb 28 in New York, Mar 1 in UTC; fully refunded on Mar 3.
    {
      id: 'ord_o1',
      status: 'refunded',
      student: 'stu_s1',
      total: 1000,
      paid: '2026-03-01T04:30:00Z',
      lines: [['course', 'crs_t1', 1, 1000]],
    },
    {
      id: 'ord_o2',
      status: 'paid',
      student: 'stu_s2',
      total: 3000,
      paid: '2026-03-01T05:30:00Z',
      lines: [
        ['course', 'crs_t1', 1, 2000],
        ['digital_product', 'dpr_x', 1, 1000],
      ],
    },
    {
      id: 'ord_o3',
      status: 'partially_refunded',
      student: 'stu_s1',
      total: 5000,
      paid: '2026-03-02T15:00:00Z',
      lines: [['membership_plan', 'mpl_x', 1, 5000]],
    },
    {
      id: 'ord_o4',
      status: 'free',
      student: 'stu_s3',
      total: 0,
      paid: '2026-03-02T16:00:00Z',
      lines: [['course', 'crs_t1', 1, 0]],
    },
    {
      id: 'ord_o5',
      status: 'failed',
      student: 'stu_s4',
      total: 7000,
      paid: null,
      lines: [['course', 'crs_t1', 1, 7000]],
    },
    {
      id: 'ord_o6',
      status: 'paid',
      student: null,
      total: 9999,
      currency: 'EUR',
      paid: '2026-03-02T17:00:00Z',
      lines: [['event_ticket', 'tkt_x', 1, 9999]],
    },
    {
      id: 'ord_o7',
      status: 'pending',
      student: 'stu_s4',
      total: 4000,
      paid: null,
      lines: [['course', 'crs_t1', 1, 4000]],
    },
  ]
  for (const [n, order] of orders.entries()) {
    const created = order.paid ? at(order.paid) - 60_000 : at('2026-03-03T00:00:00Z')
    await db
      .insertInto('orders')
      .values({
        id: order.id,
        number: String(1000 + n),
        status: order.status,
        student_id: order.student,
        customer_email: `${order.student ?? 'guest'}@example.com`,
        customer_name: null,
        currency: order.currency ?? 'USD',
        subtotal: order.total,
        discount_total: 0,
        tax_total: 0,
        total: order.total,
        amount_refunded: 0,
        coupon_id: null,
        coupon_code: null,
        payment: '{"provider":"manual"}',
        subscription_id: null,
        source: 'checkout',
        paid_at: order.paid ? at(order.paid) : null,
        created_at: created,
        updated_at: created,
      })
      .execute()
    for (const [i, [type, product, quantity, total]] of order.lines.entries())
      await db
        .insertInto('order_items')
        .values({
          id: `oit_${order.id}_${i}`,
          order_id: order.id,
          position: i,
          product_type: type as 'course',
          product_id: product,
          price_id: null,
          event_id: null,
          name: `${product} line`,
          quantity,
          unit_amount: total,
          discount_amount: 0,
          total_amount: total,
        })
        .execute()
  }
  for (const [id, order, amount, when] of [
    ['rfd_r1', 'ord_o1', 1000, '2026-03-03T12:00:00Z'],
    ['rfd_r2', 'ord_o3', 2000, '2026-03-20T12:00:00Z'],
    ['rfd_r3', 'ord_o6', 500, '2026-03-03T12:00:00Z'], // EUR: counted in EUR only
  ] as const)
    await db
      .insertInto('refunds')
      .values({ id, order_id: order, amount, reason: null, created_at: at(when) })
      .execute()

  await db
    .insertInto('membership_plans')
    .values({
      id: 'mpl_x',
      name: 'Plan',
      slug: 'plan',
      description: null,
      cover_image_url: null,
      status: 'active',
      visible: 1,
      billing_type: 'recurring',
      includes: '{}',
      features: '[]',
      faq: '[]',
      position: 0,
      created_at: t,
      updated_at: t,
    })
    .execute()
  await db
    .insertInto('membership_plan_prices')
    .values({
      id: 'mpp_x',
      plan_id: 'mpl_x',
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
  const subs: Array<{
    status: 'active' | 'trialing' | 'canceled'
    amount: number
    interval: 'month' | 'year' | null
    source?: 'manual'
    started: string
    trial?: string
    ended?: string
  }> = [
    { status: 'active', amount: 1900, interval: 'month', started: '2026-02-01T12:00:00Z' },
    { status: 'active', amount: 19000, interval: 'year', started: '2026-03-02T12:00:00Z' },
    {
      status: 'trialing',
      amount: 1900,
      interval: 'month',
      started: '2026-03-03T12:00:00Z',
      trial: '2026-03-10T12:00:00Z',
    },
    {
      status: 'canceled',
      amount: 1900,
      interval: 'month',
      started: '2026-01-15T12:00:00Z',
      ended: '2026-03-06T12:00:00Z',
    },
    {
      status: 'active',
      amount: 0,
      interval: null,
      source: 'manual',
      started: '2026-02-20T12:00:00Z',
    },
  ]
  for (const [i, sub] of subs.entries())
    await db
      .insertInto('subscriptions')
      .values({
        id: `sub_${i}`,
        student_id: 'stu_s1',
        plan_id: 'mpl_x',
        price_id: 'mpp_x',
        status: sub.status,
        amount: sub.amount,
        currency: 'USD',
        interval: sub.interval,
        interval_count: sub.interval ? 1 : null,
        source: sub.source ?? 'checkout',
        started_at: at(sub.started),
        trial_ends_at: sub.trial ? at(sub.trial) : null,
        current_period_start: at(sub.started),
        current_period_end: null,
        cancel_at_period_end: 0,
        canceled_at: sub.ended ? at(sub.ended) : null,
        cancellation_reason: null,
        ended_at: sub.ended ? at(sub.ended) : null,
        latest_order_id: null,
        created_at: at(sub.started),
        updated_at: at(sub.started),
      })
      .execute()
}

describe('analytics on a fixture school', () => {
  let server: TestServer
  let call: ReturnType<typeof apiClient>
  beforeAll(async () => {
    server = await startTestServer()
    await insertFixture(server.deps.database.db)
    const { accessToken } = await issue(server, { role: 'owner', scope: 'analytics:read' })
    call = apiClient(server, accessToken)
  })
  afterAll(async () => {
    await server?.close()
  })
  const get = async (path: string) => {
    const response = await call(path)
    expect(response.status).toBe(200)
    expect(response.headers.get('cache-control')).toBe('no-store')
    return readJson(response)
  }

  it('needs a token with analytics:read, for a role that may hold it', async () => {
    const paths = [
      '/api/v1/analytics/overview',
      '/api/v1/analytics/revenue',
      '/api/v1/analytics/products',
      '/api/v1/analytics/courses/crs_t1',
      '/api/v1/analytics/students',
    ]
    const other = await issue(server, { role: 'owner', scope: 'courses:read orders:read' })
    const lecturer = await issue(server, { role: 'lecturer', scope: 'analytics:read' })
    const editor = await issue(server, { role: 'editor', scope: 'analytics:read' })
    for (const path of paths) {
      const anonymous = await server.fetch(path)
      await problem(anonymous, 401, 'unauthenticated')
      expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer /)
      const scoped = await apiClient(server, other.accessToken)(path)
      const body = await problem(scoped, 403, 'insufficient_scope')
      expect(body.required_scopes).toEqual(['analytics:read'])
      expect(scoped.headers.get('www-authenticate')).toContain('analytics:read')
      // A lecturer's role does not allow analytics:read, whatever the token says.
      await problem(await apiClient(server, lecturer.accessToken)(path), 403, 'insufficient_scope')
      expect((await apiClient(server, editor.accessToken)(path)).status).toBe(200)
      // Authorization comes before validation: no token, no hint about the parameters.
      await problem(await server.fetch(`${path}?from=nope`), 401, 'unauthenticated')
    }
  })

  it('gives the overview of a week in the school time zone, with the previous week', async () => {
    const body = await get(
      '/api/v1/analytics/overview?from=2026-03-01&to=2026-03-07&compare=previous_period',
    )
    expect(body).toEqual({
      object: 'analytics_overview',
      from: '2026-03-01',
      to: '2026-03-07',
      timezone: 'America/New_York',
      currency: 'USD',
      currencies: ['USD', 'EUR'],
      // o2 3000 + o3 5000; the o1 refund (order paid Feb 28 local) falls on Mar 3; o6 in EUR,
      // never added to the dollars.
      revenue: { gross: m(8000, 9999), refunds: m(1000, 500), net: m(7000, 9499) },
      orders_count: 3,
      paying_customers: 3,
      average_order_value: m(4000, 9999),
      new_students: 2,
      active_students: 4,
      enrollments: 3,
      course_completions: 1,
      // active monthly, yearly, manual grant; one in trial; the canceled one ended Mar 6.
      active_subscriptions: 3,
      trialing_subscriptions: 1,
      mrr: m(1900 + 1583),
      churned_subscriptions: 1,
      previous: {
        from: '2026-02-22',
        to: '2026-02-28',
        revenue: { gross: m(1000), refunds: m(0), net: m(1000) },
        orders_count: 1,
        paying_customers: 1,
        average_order_value: m(1000),
        new_students: 1,
        active_students: 0,
        enrollments: 0,
        course_completions: 0,
        active_subscriptions: 3,
        trialing_subscriptions: 0,
        mrr: m(3800),
        churned_subscriptions: 0,
      },
    })
  })

  it('reads the range in another time zone when asked', async () => {
    const body = await get('/api/v1/analytics/overview?from=2026-03-01&to=2026-03-07&timezone=utc')
    expect(body.timezone).toBe('UTC')
    expect(body).not.toHaveProperty('previous')
    // o1 (04:30Z) is on Mar 1 in UTC: 3 dollar orders of 9000, AOV 3000; o6 in EUR.
    expect(body.revenue).toEqual({
      gross: m(9000, 9999),
      refunds: m(1000, 500),
      net: m(8000, 9499),
    })
    expect(body.orders_count).toBe(4)
    expect(body.average_order_value).toEqual(m(3000, 9999))
    expect(body.paying_customers).toBe(3)
    expect(body.new_students).toBe(3)
  })

  it('averages the orders of the range', async () => {
    // Feb 28 – Mar 1 in New York: o1 1000 and o2 3000 (rounding is unit-tested in figures).
    const body = await get('/api/v1/analytics/overview?from=2026-02-28&to=2026-03-01')
    expect(body.average_order_value).toEqual(m(2000))
  })

  it('lists revenue per day with every day present, and refunds in their own period', async () => {
    const body = await get('/api/v1/analytics/revenue?from=2026-02-28&to=2026-03-04')
    expect(body).toMatchObject({ object: 'list', interval: 'day', timezone: 'America/New_York' })
    expect(
      body.data.map((p: Json) => [
        p.period_start,
        p.gross[0].amount,
        p.refunds[0].amount,
        p.net[0].amount,
        p.orders_count,
      ]),
    ).toEqual([
      ['2026-02-28', 1000, 0, 1000, 1],
      ['2026-03-01', 3000, 0, 3000, 1],
      ['2026-03-02', 5000, 0, 5000, 2],
      ['2026-03-03', 0, 1000, -1000, 0],
      ['2026-03-04', 0, 0, 0, 0],
    ])
    // The EUR order of Mar 2 is listed in its own currency, never added to the dollars.
    expect(body.data[2].gross).toEqual(m(5000, 9999))
    const utc = await get('/api/v1/analytics/revenue?from=2026-02-28&to=2026-03-01&timezone=UTC')
    expect(utc.data.map((p: Json) => p.gross[0].amount)).toEqual([0, 4000])
  })

  it('cuts revenue into months and ISO weeks, and by product type', async () => {
    const months = await get(
      '/api/v1/analytics/revenue?from=2026-02-01&to=2026-04-30&interval=month',
    )
    expect(
      months.data.map((p: Json) => [
        p.period_start,
        p.gross[0].amount,
        p.refunds[0].amount,
        p.net[0].amount,
      ]),
    ).toEqual([
      ['2026-02-01', 1000, 0, 1000],
      ['2026-03-01', 8000, 3000, 5000],
      ['2026-04-01', 0, 0, 0],
    ])
    const weeks = await get('/api/v1/analytics/revenue?from=2026-03-01&to=2026-03-08&interval=week')
    // Mar 1 2026 is a Sunday: its ISO week starts on Monday Feb 23.
    expect(weeks.data.map((p: Json) => [p.period_start, p.gross[0].amount])).toEqual([
      ['2026-02-23', 3000],
      ['2026-03-02', 5000],
    ])
    const grouped = await get(
      '/api/v1/analytics/revenue?from=2026-03-01&to=2026-03-31&interval=month&group_by=product_type',
    )
    expect(grouped.data[0].by_product_type).toEqual({
      course: { gross: m(2000), refunds: m(1000), net: m(1000) },
      digital_product: { gross: m(1000), refunds: m(0), net: m(1000) },
      event_ticket: { gross: m(0, 9999), refunds: m(0, 500), net: m(0, 9499) },
      membership_plan: { gross: m(5000), refunds: m(2000), net: m(3000) },
    })
  })

  it('ranks products by net revenue, with filters, sort and limit', async () => {
    const body = await get('/api/v1/analytics/products?from=2026-03-01&to=2026-03-07')
    expect(body).toMatchObject({ object: 'list', has_more: false, total_count: 4 })
    expect(body.data).toEqual([
      {
        object: 'product_revenue',
        product_type: 'membership_plan',
        product_id: 'mpl_x',
        name: 'mpl_x line',
        units: 1,
        gross: m(5000),
        refunds: m(0),
        net: m(5000),
      },
      // The refund of o1 (paid Feb 28) lands on its course in March.
      {
        object: 'product_revenue',
        product_type: 'course',
        product_id: 'crs_t1',
        name: 'crs_t1 line',
        units: 1,
        gross: m(2000),
        refunds: m(1000),
        net: m(1000),
      },
      {
        object: 'product_revenue',
        product_type: 'digital_product',
        product_id: 'dpr_x',
        name: 'dpr_x line',
        units: 1,
        gross: m(1000),
        refunds: m(0),
        net: m(1000),
      },
      // Sold in EUR only: money keys compare dollars first, so it ranks last here.
      {
        object: 'product_revenue',
        product_type: 'event_ticket',
        product_id: 'tkt_x',
        name: 'tkt_x line',
        units: 1,
        gross: m(0, 9999),
        refunds: m(0, 500),
        net: m(0, 9499),
      },
    ])
    const courses = await get(
      '/api/v1/analytics/products?from=2026-03-01&to=2026-03-07&product_type=course',
    )
    expect(courses.data.map((p: Json) => p.product_id)).toEqual(['crs_t1'])
    const limited = await get(
      '/api/v1/analytics/products?from=2026-03-01&to=2026-03-07&limit=1&sort=refunds',
    )
    expect(limited).toMatchObject({ has_more: true, total_count: 4 })
    expect(limited.data[0].product_id).toBe('dpr_x')
    const events = await get(
      '/api/v1/analytics/products?from=2026-03-01&to=2026-03-07&product_type=event',
    )
    expect(events.data.map((p: Json) => [p.product_id, p.net])).toEqual([['tkt_x', m(0, 9499)]])
  })

  it('measures a course at the end of the range, by id or slug', async () => {
    const body = await get('/api/v1/analytics/courses/crs_t1?from=2026-03-01&to=2026-03-07')
    expect(body).toEqual({
      object: 'course_analytics',
      course_id: 'crs_t1',
      title: 'Test course',
      from: '2026-03-01',
      to: '2026-03-07',
      timezone: 'America/New_York',
      enrollments: 3,
      learners: 3, // e1, e2, e3: the revoked e4 is out of the cohort
      active_learners: 3,
      completion_rate: 0.3333,
      average_progress: 0.6667,
      average_rating: null,
      lessons: [
        { lesson_id: 'lsn_l1', title: 'LSN_L1', completed: 3, drop_off_rate: 0 },
        { lesson_id: 'lsn_l2', title: 'LSN_L2', completed: 2, drop_off_rate: 0.3333 },
        { lesson_id: 'lsn_l3', title: 'LSN_L3', completed: 1, drop_off_rate: 0.5 },
      ],
    })
    const early = await get('/api/v1/analytics/courses/test-course?from=2026-02-01&to=2026-02-28')
    expect(early).toMatchObject({
      enrollments: 1,
      learners: 1,
      active_learners: 1,
      completion_rate: 0,
      average_progress: 0.3333,
    })
    await problem(await call('/api/v1/analytics/courses/crs_nope'), 404, 'not_found')
  })

  it('follows student growth per period', async () => {
    const body = await get(
      '/api/v1/analytics/students?from=2026-02-01&to=2026-03-31&interval=month',
    )
    expect(body.data).toEqual([
      // s1, s2 (Feb 28 local); s1 first bought on Feb 28 local; s1 completed a lesson Feb 12.
      // March: s2, and the guest of o6 (a first purchase in EUR is a first purchase too).
      { period_start: '2026-02-01', signups: 2, first_purchases: 1, active_students: 1 },
      { period_start: '2026-03-01', signups: 2, first_purchases: 2, active_students: 4 },
    ])
  })

  it('defaults to the last 30 days in the school time zone', async () => {
    const body = await get('/api/v1/analytics/overview')
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/New_York' }).format(
      new Date(),
    )
    expect(body.to).toBe(today)
    expect(Date.parse(body.to) - Date.parse(body.from)).toBe(29 * DAY)
    const series = await get('/api/v1/analytics/revenue')
    expect(series.data).toHaveLength(30)
  })

  it('documents every report in OpenAPI, behind analytics:read', async () => {
    const document = await readJson(await server.fetch('/openapi.json'))
    for (const path of ['overview', 'revenue', 'products', 'courses/{course_id}', 'students']) {
      const operation = document.paths[`/api/v1/analytics/${path}`]?.get
      expect(operation?.security, path).toEqual([{ oauth2: ['analytics:read'] }])
      expect(operation.responses['400']).toBeDefined()
    }
  })

  it('refuses bad parameters with a 400 naming them', async () => {
    const cases: Array<[string, string]> = [
      ['/api/v1/analytics/overview?from=2026-02-30', 'from'],
      ['/api/v1/analytics/overview?to=03/01/2026', 'to'],
      ['/api/v1/analytics/overview?from=2026-03-02&to=2026-03-01', 'from'],
      ['/api/v1/analytics/overview?timezone=Mars/Olympus', 'timezone'],
      ['/api/v1/analytics/overview?compare=last_year', 'compare'],
      ['/api/v1/analytics/overview?interval=day', 'interval'],
      ['/api/v1/analytics/overview?from=2026-03-01&from=2026-03-02', 'from'],
      ['/api/v1/analytics/revenue?from=2025-01-01&to=2026-01-02', 'to'],
      ['/api/v1/analytics/revenue?interval=year', 'interval'],
      ['/api/v1/analytics/revenue?group_by=course', 'group_by'],
      ['/api/v1/analytics/products?limit=201', 'limit'],
      ['/api/v1/analytics/products?product_type=coupon', 'product_type'],
      ['/api/v1/analytics/products?sort=-price', 'sort'],
      ['/api/v1/analytics/students?from=2000-01-01&to=2020-01-01&interval=month', 'to'],
      ['/api/v1/analytics/courses/crs_t1?interval=week', 'interval'],
    ]
    for (const [path, field] of cases) {
      const body = await problem(await call(path), 400, 'invalid_request')
      expect(
        body.errors.map((e: Json) => e.field),
        path,
      ).toContain(field)
    }
    // A long range is fine by the week or month.
    expect(
      (await call('/api/v1/analytics/revenue?from=2025-01-01&to=2026-01-02&interval=week')).status,
    ).toBe(200)
  })
})

/** The demo school, checked against a computation over its own rows written here. */
describe('analytics on the demo school', () => {
  const server = useDemoServer()
  let call: ReturnType<typeof apiClient>
  beforeAll(async () => {
    const { accessToken } = await issue(server(), { role: 'owner', scope: 'analytics:read' })
    call = apiClient(server(), accessToken)
  })

  // The demo school's money figures are checked by test/http/api-resources/money-agreement.test.ts.

  it('has a course report for every demo course', async () => {
    const courses = await server().deps.database.db.selectFrom('courses').select('id').execute()
    for (const { id } of courses) {
      const response = await call(`/api/v1/analytics/courses/${id}?timezone=UTC`)
      expect(response.status).toBe(200)
      const body = await readJson(response)
      expect(body.completion_rate).toBeGreaterThanOrEqual(0)
      expect(body.completion_rate).toBeLessThanOrEqual(1)
    }
    const foundations = await readJson(
      await call('/api/v1/analytics/courses/photography-foundations?from=2025-01-01&to=2027-12-31'),
    )
    expect(foundations.learners).toBeGreaterThan(5)
    expect(foundations.lessons.length).toBeGreaterThan(5)
  })
})
