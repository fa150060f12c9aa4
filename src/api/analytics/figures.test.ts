import { describe, expect, it } from 'vitest'
import { parseDate, windowOf } from './calendar.js'
import {
  allocate,
  coursePerformance,
  customerKey,
  divideRounded,
  firstPurchases,
  monthlyAmount,
  productRanking,
  type RevenueOrder,
  revenueOf,
  revenueSeries,
  runningAt,
  type SubscriptionRow,
  sortRanking,
  studentSeries,
  subscriptionFigures,
} from './figures.js'

const day = (text: string) => parseDate(text) as number
const at = (iso: string) => Date.parse(iso)
const utc = (from: string, to: string) => windowOf(day(from), day(to), 'UTC')

const order = (id: string, total: number, paidAt: string, student: string | null = id) =>
  ({
    id,
    student_id: student,
    customer_email: `${id}@example.com`,
    total,
    paid_at: at(paidAt),
  }) satisfies RevenueOrder

describe('analytics figures', () => {
  it('rounds the average order value half up', () => {
    expect(divideRounded(10, 4)).toBe(3) // 2.5
    expect(divideRounded(9, 4)).toBe(2) // 2.25
    expect(divideRounded(11, 4)).toBe(3) // 2.75
    expect(divideRounded(5, 0)).toBe(0)
  })

  it('allocates refunds over lines exactly', () => {
    expect(allocate(100, [1, 1, 1])).toEqual([34, 33, 33])
    expect(allocate(1000, [3000, 1000])).toEqual([750, 250])
    expect(allocate(7, [0, 0])).toEqual([4, 3])
    expect(allocate(0, [5])).toEqual([0])
    expect(allocate(5, [])).toEqual([])
  })

  it('counts revenue by paid_at and refunds by their own date', () => {
    const orders = [
      order('a', 1000, '2026-03-01T00:00:00Z'),
      order('b', 3000, '2026-03-31T23:59:59Z'),
      order('c', 500, '2026-04-01T00:00:00Z'),
      order('d', 700, '2026-03-10T00:00:00Z', null),
    ]
    const refunds = [
      { order_id: 'a', amount: 400, created_at: at('2026-04-02T00:00:00Z') },
      { order_id: 'x', amount: 100, created_at: at('2026-03-15T00:00:00Z') },
    ]
    const march = revenueOf(orders, refunds, utc('2026-03-01', '2026-03-31'))
    expect(march).toEqual({
      gross: 4700,
      refunds: 100,
      net: 4600,
      orders_count: 3,
      paying_customers: 3,
      average_order_value: 1567,
    })
    const april = revenueOf(orders, refunds, utc('2026-04-01', '2026-04-30'))
    expect(april).toMatchObject({ gross: 500, refunds: 400, net: 100, orders_count: 1 })
  })

  it('keys customers by student, else by email', () => {
    expect(customerKey({ student_id: 'stu_1', customer_email: 'A@x' })).toBe('stu_1')
    expect(customerKey({ student_id: null, customer_email: ' A@X.com' })).toBe('email:a@x.com')
  })

  it('lists every period with zeros, in the time zone', () => {
    const window = windowOf(day('2026-03-01'), day('2026-03-03'), 'America/New_York')
    const series = revenueSeries(
      // 04:30 UTC on the 2nd is still the 1st in New York.
      [order('a', 1000, '2026-03-02T04:30:00Z'), order('b', 200, '2026-03-02T05:30:00Z')],
      [],
      window,
      'day',
    )
    expect(series.map((p) => [p.gross, p.orders_count])).toEqual([
      [1000, 1],
      [200, 1],
      [0, 0],
    ])
  })

  it('ranks products with refunds spread over the lines', () => {
    const orders = [
      order('o1', 4000, '2026-03-02T00:00:00Z'),
      order('o2', 1000, '2026-03-03T00:00:00Z'),
    ]
    const line = (order_id: string, position: number, id: string, total: number, name = id) => ({
      order_id,
      position,
      product_type: 'course',
      product_id: id,
      name,
      quantity: 1,
      total_amount: total,
    })
    const lines = [
      line('o1', 0, 'crs_a', 3000, 'Old name'),
      line('o1', 1, 'crs_b', 1000),
      line('o2', 0, 'crs_a', 1000, 'New name'),
    ]
    const refunds = [{ order_id: 'o1', amount: 2000, created_at: at('2026-03-05T00:00:00Z') }]
    const ranking = sortRanking(
      productRanking(orders, lines, refunds, utc('2026-03-01', '2026-03-31')),
      'net_revenue',
      true,
    )
    expect(ranking).toEqual([
      {
        product_type: 'course',
        product_id: 'crs_a',
        name: 'New name',
        units: 2,
        gross: 4000,
        refunds: 1500,
        net: 2500,
      },
      {
        product_type: 'course',
        product_id: 'crs_b',
        name: 'crs_b',
        units: 1,
        gross: 1000,
        refunds: 500,
        net: 500,
      },
    ])
    expect(sortRanking(ranking, 'name', false).map((p) => p.product_id)).toEqual(['crs_b', 'crs_a'])
  })

  it('normalises subscriptions to a month and counts the running ones', () => {
    const sub = (over: Partial<SubscriptionRow>): SubscriptionRow => ({
      status: 'active',
      amount: 1900,
      currency: 'USD',
      interval: 'month',
      interval_count: 1,
      source: 'checkout',
      started_at: at('2026-01-01T00:00:00Z'),
      trial_ends_at: null,
      ended_at: null,
      ...over,
    })
    expect(monthlyAmount(sub({ interval: 'year', amount: 19000 }))).toBeCloseTo(1583.333, 2)
    expect(monthlyAmount(sub({ interval: 'month', interval_count: 3, amount: 3000 }))).toBe(1000)
    expect(monthlyAmount(sub({ interval: null }))).toBe(0)
    const window = utc('2026-03-01', '2026-03-31')
    const end = at('2026-03-31T23:59:59Z')
    const subs = [
      sub({}), // 1900
      sub({ interval: 'year', amount: 19000 }), // 1583.33
      sub({ status: 'past_due' }), // 1900
      sub({ status: 'trialing', trial_ends_at: at('2026-04-05T00:00:00Z') }), // running, no MRR
      sub({ source: 'manual' }), // running, no MRR
      sub({ status: 'canceled', ended_at: at('2026-03-10T00:00:00Z') }), // churned
      sub({ status: 'expired', ended_at: at('2026-02-10T00:00:00Z') }),
      sub({ status: 'incomplete' }),
      sub({ started_at: at('2026-04-02T00:00:00Z') }),
      sub({ interval: null, amount: 49900 }), // lifetime: running, no MRR
    ]
    expect(runningAt(subs[5] as SubscriptionRow, at('2026-03-09T00:00:00Z'))).toBe(true)
    expect(subscriptionFigures(subs, window, end, 'USD')).toEqual({
      active_subscriptions: 6,
      mrr: 5383,
      churned_subscriptions: 1,
    })
  })

  it('measures a course funnel at the end of the window', () => {
    const lessons = [
      { id: 'l1', title: 'One' },
      { id: 'l2', title: 'Two' },
    ]
    const cohort = [
      { id: 'e1', student_id: 's1' },
      { id: 'e2', student_id: 's2' },
      { id: 'e3', student_id: 's3' },
      { id: 'e4', student_id: 's4' },
    ]
    const done = (enrollment_id: string, lesson_id: string, when: string) => ({
      enrollment_id,
      lesson_id,
      completed_at: at(when),
    })
    const progress = [
      done('e1', 'l1', '2026-02-01T00:00:00Z'),
      done('e1', 'l2', '2026-03-02T00:00:00Z'),
      done('e2', 'l1', '2026-03-03T00:00:00Z'),
      done('e3', 'l1', '2026-04-03T00:00:00Z'), // after the window: not counted
      done('e3', 'l_draft', '2026-03-03T00:00:00Z'), // not a published lesson, still activity
      done('e9', 'l1', '2026-03-03T00:00:00Z'), // not in the cohort
    ]
    expect(coursePerformance(cohort, lessons, progress, utc('2026-03-01', '2026-03-31'))).toEqual({
      active_learners: 3,
      completion_rate: 0.25,
      average_progress: 0.375,
      lessons: [
        { lesson_id: 'l1', title: 'One', completed: 2, drop_off_rate: 0.5 },
        { lesson_id: 'l2', title: 'Two', completed: 1, drop_off_rate: 0.5 },
      ],
    })
  })

  it('counts first purchases once per customer, ever', () => {
    const orders = [
      order('a', 1000, '2026-02-01T00:00:00Z', 's1'),
      order('b', 1000, '2026-03-05T00:00:00Z', 's1'),
      order('c', 1000, '2026-03-06T00:00:00Z', 's2'),
      order('d', 0, '2026-03-06T00:00:00Z', 's3'),
    ]
    const series = studentSeries(
      {
        signups: [at('2026-03-01T10:00:00Z'), at('2026-02-01T10:00:00Z')],
        firstPurchases: firstPurchases(orders),
        activity: [
          { student_id: 's1', at: at('2026-03-02T00:00:00Z') },
          { student_id: 's1', at: at('2026-03-03T00:00:00Z') },
          { student_id: 's2', at: at('2026-03-10T00:00:00Z') },
        ],
      },
      utc('2026-03-01', '2026-03-31'),
      'month',
    )
    expect(series).toEqual([
      { period_start: day('2026-03-01'), signups: 1, first_purchases: 1, active_students: 2 },
    ])
  })
})
