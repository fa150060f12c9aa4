import { describe, expect, it } from 'vitest'
import type { MoneyLine, MoneyOrder, MoneyRefund } from '../money/records.js'
import { parseDate, windowOf } from './calendar.js'
import {
  coursePerformance,
  firstPurchases,
  productRanking,
  revenueOf,
  revenueSeries,
  sortRanking,
  studentSeries,
} from './figures.js'

const day = (text: string) => parseDate(text) as number
const at = (iso: string) => Date.parse(iso)
const utc = (from: string, to: string) => windowOf(day(from), day(to), 'UTC')
const USD = (amount: number) => ({ amount, currency: 'USD' })
const EUR = (amount: number) => ({ amount, currency: 'EUR' })

const order = (
  id: string,
  total: number,
  paidAt: string,
  student: string | null = id,
  currency = 'USD',
): MoneyOrder => ({
  id,
  status: 'paid',
  currency,
  total,
  tax_total: 0,
  paid_at: at(paidAt),
  coupon_id: null,
  student_id: student,
  customer_email: `${id}@example.com`,
})
const refund = (order_id: string, amount: number, when: string): MoneyRefund => ({
  id: `rfd_${order_id}_${amount}`,
  order_id,
  order_line_id: null,
  amount,
  created_at: at(when),
})

describe('analytics figures', () => {
  it('counts revenue by paid_at and refunds by their own date, each currency apart', () => {
    const orders = [
      order('a', 1000, '2026-03-01T00:00:00Z'),
      order('b', 3000, '2026-03-31T23:59:59Z'),
      order('c', 500, '2026-04-01T00:00:00Z'),
      order('d', 700, '2026-03-10T00:00:00Z', null),
      order('e', 900, '2026-03-11T00:00:00Z', 'e', 'EUR'),
      { ...order('f', 5000, '2026-03-11T00:00:00Z'), status: 'free' },
    ]
    const refunds = [
      refund('a', 400, '2026-04-02T00:00:00Z'),
      refund('x', 100, '2026-03-15T00:00:00Z'), // no counted order: not counted
      refund('e', 100, '2026-03-15T00:00:00Z'),
    ]
    const records = { orders, lines: [], refunds }
    const march = revenueOf(records, utc('2026-03-01', '2026-03-31'), ['USD', 'EUR'])
    expect(march).toEqual({
      gross: [USD(4700), EUR(900)],
      refunds: [USD(0), EUR(100)],
      net: [USD(4700), EUR(800)],
      orders_count: 4,
      paying_customers: 4,
      average_order_value: [USD(1567), EUR(900)],
    })
    const april = revenueOf(records, utc('2026-04-01', '2026-04-30'), ['EUR', 'USD'])
    expect(april).toMatchObject({
      gross: [EUR(0), USD(500)],
      refunds: [EUR(0), USD(400)],
      net: [EUR(0), USD(100)],
      orders_count: 1,
    })
  })

  it('lists every period with zeros, in the time zone', () => {
    const window = windowOf(day('2026-03-01'), day('2026-03-03'), 'America/New_York')
    const series = revenueSeries(
      // 04:30 UTC on the 2nd is still the 1st in New York.
      {
        orders: [order('a', 1000, '2026-03-02T04:30:00Z'), order('b', 200, '2026-03-02T05:30:00Z')],
        lines: [],
        refunds: [],
      },
      window,
      'day',
      ['USD'],
    )
    expect(series.map((p) => [p.gross, p.orders_count])).toEqual([
      [[USD(1000)], 1],
      [[USD(200)], 1],
      [[USD(0)], 0],
    ])
  })

  it('ranks products with refunds allocated over the lines', () => {
    const orders = [
      order('o1', 4000, '2026-03-02T00:00:00Z'),
      order('o2', 1000, '2026-03-03T00:00:00Z'),
    ]
    const line = (
      order_id: string,
      position: number,
      id: string,
      total: number,
      name = id,
    ): MoneyLine => ({
      id: `${order_id}_${position}`,
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
    const refunds = [refund('o1', 2000, '2026-03-05T00:00:00Z')]
    const ranking = sortRanking(
      productRanking({ orders, lines, refunds }, utc('2026-03-01', '2026-03-31'), ['USD']),
      'net_revenue',
      true,
    )
    expect(ranking).toEqual([
      {
        product_type: 'course',
        product_id: 'crs_a',
        name: 'New name',
        units: 2,
        gross: [USD(4000)],
        refunds: [USD(1500)],
        net: [USD(2500)],
      },
      {
        product_type: 'course',
        product_id: 'crs_b',
        name: 'crs_b',
        units: 1,
        gross: [USD(1000)],
        refunds: [USD(500)],
        net: [USD(500)],
      },
    ])
    expect(sortRanking(ranking, 'name', false).map((p) => p.product_id)).toEqual(['crs_b', 'crs_a'])
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
