import { describe, expect, it } from 'vitest'
import { allocate } from './allocation.js'
import { currencyOrder } from './currencies.js'
import type { MoneyLine, MoneyOrder } from './records.js'
import { customerKey } from './records.js'
import { checkRefund, refundParts } from './refunds.js'
import { ALL_TIME, divideRounded, netOfOrders, productFigures } from './revenue.js'
import {
  activeAt,
  type MoneySubscription,
  monthlyAmount,
  mrrAt,
  runningAt,
  subscriptionCounts,
} from './subscriptions.js'

const at = (iso: string) => Date.parse(iso)

const order: MoneyOrder = {
  id: 'ord_1',
  status: 'partially_refunded',
  currency: 'USD',
  total: 11_000,
  tax_total: 1_000,
  paid_at: at('2026-03-01T00:00:00Z'),
  coupon_id: 'cpn_1',
  student_id: 'stu_1',
  customer_email: 'a@example.com',
}
const line = (position: number, total: number, product_id = `prd_${position}`): MoneyLine => ({
  id: `oit_${position}`,
  order_id: 'ord_1',
  position,
  product_type: 'digital_product',
  product_id,
  name: product_id,
  quantity: 1,
  total_amount: total,
})
const lines = [line(0, 6_000), line(1, 3_000), line(2, 1_000)]

describe('money: allocation (largest remainder, exact in minor units)', () => {
  it('splits in proportion and gives the leftover units to the largest remainders', () => {
    expect(allocate(100, [1, 1, 1])).toEqual([34, 33, 33])
    expect(allocate(1000, [3000, 1000])).toEqual([750, 250])
    expect(allocate(10, [1, 2, 3])).toEqual([2, 3, 5])
    expect(allocate(7, [0, 0])).toEqual([4, 3])
    expect(allocate(0, [5])).toEqual([0])
    expect(allocate(5, [])).toEqual([])
  })

  it('stays exact where amount × weight passes 2^53', () => {
    const parts = allocate(99_999_999, [99_999_998, 99_999_999, 3])
    expect(parts.reduce((a, b) => a + b, 0)).toBe(99_999_999)
    expect(parts).toEqual([49_999_999, 49_999_999, 1])
  })

  it('divides half up for averages', () => {
    expect(divideRounded(10, 4)).toBe(3)
    expect(divideRounded(9, 4)).toBe(2)
    expect(divideRounded(5, 0)).toBe(0)
  })

  it('keys customers by student, else by email', () => {
    expect(customerKey({ student_id: 'stu_1', customer_email: 'A@x' })).toBe('stu_1')
    expect(customerKey({ student_id: null, customer_email: ' A@X.com' })).toBe('email:a@x.com')
  })
})

describe('money: the refund rule (tax and allocation)', () => {
  it('splits a refund naming no line over every line and the tax', () => {
    const parts = refundParts(order, lines, { amount: 1_001, order_line_id: null })
    // weights 6000, 3000, 1000, tax 1000 of 11000: 546.0, 273.0, 91.0, 91.0 (+1 leftover)
    expect([...parts.lines.values()].reduce((a, b) => a + b, 0) + parts.tax).toBe(1_001)
    expect(Object.fromEntries(parts.lines)).toEqual({ oit_0: 546, oit_1: 273, oit_2: 91 })
    expect(parts.tax).toBe(91)
  })

  it('charges a refund naming a line to that line and its share of the tax only', () => {
    const parts = refundParts(order, lines, { amount: 3_300, order_line_id: 'oit_1' })
    // line 1 carries 300 of the 1000 tax: 3300 = 3000 to the line + 300 tax
    expect(Object.fromEntries(parts.lines)).toEqual({ oit_1: 3_000 })
    expect(parts.tax).toBe(300)
  })

  it('refuses a refund for a line of another order, and more than was paid', () => {
    const foreign = { ...line(0, 500), id: 'oit_other', order_id: 'ord_2' }
    expect(
      checkRefund(order, [...lines, foreign], [], { amount: 100, order_line_id: 'oit_other' }),
    ).toMatchObject([{ field: 'order_line_id', code: 'not_found' }])
    expect(checkRefund(order, lines, [], { amount: 1_200, order_line_id: 'oit_2' })).toMatchObject([
      { field: 'amount', code: 'range' },
    ])
    expect(
      checkRefund(order, lines, [{ amount: 11_000, order_line_id: null }], {
        amount: 1,
        order_line_id: null,
      }),
    ).toMatchObject([{ field: 'amount', code: 'range' }])
    expect(checkRefund(order, lines, [], { amount: 1_100, order_line_id: 'oit_2' })).toEqual([])
  })

  it('counts what a refund naming no line charged a line before refunding that line by name', () => {
    // 5500 split over the order charges line 2 (1000 of 11000) 500 of its 1000 before tax;
    // a named refund of 1100 would charge it 1000 more, 1500 of the 1000 it earned.
    const earlier = [{ amount: 5_500, order_line_id: null }]
    expect(
      checkRefund(order, lines, earlier, { amount: 1_100, order_line_id: 'oit_2' }),
    ).toMatchObject([{ field: 'amount', code: 'range' }])
    expect(checkRefund(order, lines, earlier, { amount: 550, order_line_id: 'oit_2' })).toEqual([])
  })

  it('charges products the pre-tax part, and coupons the whole refund', () => {
    const records = {
      orders: [order],
      lines,
      refunds: [
        {
          id: 'rfd_1',
          order_id: 'ord_1',
          order_line_id: 'oit_1',
          amount: 3_300,
          created_at: at('2026-03-02T00:00:00Z'),
        },
      ],
    }
    const products = productFigures(records, ALL_TIME)
    const p1 = products.get('digital_product\u0000prd_1')
    expect(p1?.net.list(['USD'])).toEqual([{ amount: 0, currency: 'USD' }])
    expect(products.get('digital_product\u0000prd_0')?.net.get('USD')).toBe(6_000)
    expect(netOfOrders(records, (o) => o.coupon_id === 'cpn_1').list(['USD'])).toEqual([
      { amount: 7_700, currency: 'USD' },
    ])
  })
})

describe('money: currencies', () => {
  it('lists the school currency first, then the others alphabetically', () => {
    expect(currencyOrder('EUR', ['USD', 'GBP', 'EUR', 'USD'])).toEqual(['EUR', 'GBP', 'USD'])
    expect(currencyOrder('USD', [])).toEqual(['USD'])
  })
})

describe('money: subscriptions and MRR', () => {
  const sub = (over: Partial<MoneySubscription>): MoneySubscription => ({
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

  it('normalises prices to a month', () => {
    expect(monthlyAmount(sub({ interval: 'year', amount: 19000 }))).toBeCloseTo(1583.333, 2)
    expect(monthlyAmount(sub({ interval: 'month', interval_count: 3, amount: 3000 }))).toBe(1000)
    expect(monthlyAmount(sub({ interval: null }))).toBe(0)
  })

  it('counts active, trialing and paying subscriptions by one definition', () => {
    const end = at('2026-03-31T23:59:59Z')
    const subs = [
      sub({}), // 1900
      sub({ interval: 'year', amount: 19000 }), // 1583.33
      sub({ status: 'past_due' }), // 1900
      sub({ status: 'trialing', trial_ends_at: at('2026-04-05T00:00:00Z') }), // trialing
      sub({ status: 'trialing', trial_ends_at: at('2026-03-05T00:00:00Z') }), // lapsed trial
      sub({ status: 'active', trial_ends_at: at('2026-03-05T00:00:00Z') }), // converted: 1900
      sub({ source: 'manual' }), // active, no MRR
      sub({ status: 'canceled', ended_at: at('2026-03-10T00:00:00Z') }),
      sub({ status: 'incomplete' }),
      sub({ started_at: at('2026-04-02T00:00:00Z') }),
      sub({ interval: null, amount: 49900 }), // lifetime: active, no MRR
      sub({ currency: 'EUR', amount: 1000 }), // its own currency
    ]
    expect(runningAt(subs[7] as MoneySubscription, at('2026-03-09T00:00:00Z'))).toBe(true)
    expect(runningAt(subs[4] as MoneySubscription, end)).toBe(false)
    expect(activeAt(subs[3] as MoneySubscription, end)).toBe(false)
    expect(subscriptionCounts(subs, end)).toEqual({
      active_subscriptions: 7,
      trialing_subscriptions: 1,
    })
    expect(mrrAt(subs, end, ['USD', 'EUR'])).toEqual([
      { amount: 7283, currency: 'USD' },
      { amount: 1000, currency: 'EUR' },
    ])
  })
})
