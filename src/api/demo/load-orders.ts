import type { Db } from '../../storage/schema.js'
import type { OrderStatus } from '../../storage/tables/commerce.js'
import { isPriceCurrency } from '../money/iso-4217.js'
import type { MoneyLine, MoneyRefund } from '../money/records.js'
import { checkRefund } from '../money/refunds.js'
import { type DemoOrder, ORDERS } from './history/orders.js'
import { emailOf, STUDENTS, studentId } from './history/people.js'
import type { DemoTime } from './when.js'

const MINUTE = 60_000

/** The payment member of an order: by card, by PayPal, or none (a free order). */
function paymentOf(order: DemoOrder): string {
  const payment = order.card
    ? {
        provider: 'stripe',
        method: 'card',
        provider_reference: `pi_demo_${order.n}`,
        last4: order.card,
      }
    : order.paypal
      ? { provider: 'paypal', method: 'wallet', provider_reference: `PAYID-DEMO-${order.n}` }
      : { provider: 'manual', method: 'none', provider_reference: null }
  return JSON.stringify(payment)
}

/**
 * Writes the orders with their lines and refunds. The amounts are the lines' sums; each
 * checkout took four minutes; an order's currency passes the check every written currency
 * passes (src/api/money/iso-4217.ts) and a refund the same check as one made through the API
 * (src/api/money/refunds.ts), or the load fails.
 */
export async function loadOrders(
  db: Db,
  time: DemoTime,
  orders: readonly DemoOrder[] = ORDERS,
): Promise<void> {
  for (const order of orders) {
    const id = `ord_demo_${order.n}`
    const currency = order.currency ?? 'USD'
    if (!isPriceCurrency(currency))
      throw new Error(`demo order ${order.n}: ${currency} is not a currency money is written in`)
    const student = STUDENTS.find(([n]) => n === order.by)
    if (!student) throw new Error(`demo order ${order.n}: no student ${order.by}`)
    const lines = order.lines.map(([product, discount = 0], position) => ({
      id: `oit_demo_${order.n}_${position + 1}`,
      order_id: id,
      position,
      product_type: product.type,
      product_id: product.product,
      price_id: product.price,
      event_id: product.event,
      name: product.name,
      quantity: 1,
      unit_amount: product.unit,
      discount_amount: discount,
      total_amount: product.unit - discount,
    }))
    const subtotal = lines.reduce((sum, l) => sum + l.unit_amount, 0)
    const discount = lines.reduce((sum, l) => sum + l.discount_amount, 0)
    const tax = order.tax ?? 0
    const total = subtotal - discount + tax
    const refunds = (order.refunds ?? []).map((refund, k) => ({
      id: `rfd_demo_${order.n}${k > 0 ? `_${k + 1}` : ''}`,
      order_id: id,
      order_line_id: refund.line === null ? null : (lines[refund.line]?.id ?? null),
      amount: refund.amount,
      reason: refund.reason,
      created_at: time.at(refund.day),
    }))
    const status: OrderStatus = order.status ?? 'paid'
    const paidAt = time.at(order.day)
    await db
      .insertInto('orders')
      .values({
        id,
        number: String(order.n),
        status,
        student_id: studentId(order.by),
        customer_email: emailOf(student[1]),
        customer_name: student[1],
        currency,
        subtotal,
        discount_total: discount,
        tax_total: tax,
        total,
        amount_refunded: refunds.reduce((sum, r) => sum + r.amount, 0),
        coupon_id: order.coupon ? `cpn_demo_${order.coupon.toLowerCase()}` : null,
        coupon_code: order.coupon ?? null,
        payment: paymentOf(order),
        subscription_id: order.subscription ?? null,
        source: 'checkout',
        paid_at: status === 'failed' || status === 'expired' ? null : paidAt,
        created_at: paidAt - 4 * MINUTE,
        updated_at: Math.max(paidAt, ...refunds.map((r) => r.created_at)),
      })
      .execute()
    for (const line of lines) await db.insertInto('order_items').values(line).execute()
    const written: MoneyLine[] = lines
    const earlier: MoneyRefund[] = []
    for (const refund of refunds) {
      const problems = checkRefund(
        { id, status: 'paid', total, tax_total: tax },
        written,
        earlier,
        refund,
      )
      if (problems.length > 0)
        throw new Error(`demo refund ${refund.id}: ${problems.map((p) => p.message).join('; ')}`)
      earlier.push(refund)
      await db.insertInto('refunds').values(refund).execute()
    }
  }
}
