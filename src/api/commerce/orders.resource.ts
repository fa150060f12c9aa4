import { sql } from 'kysely'
import { timestamp } from '../conventions.js'
import {
  email,
  enumeration,
  type Field,
  instant,
  integer,
  reference,
  text,
} from '../framework/fields.js'
import { money } from '../framework/money.js'
import { defineResource } from '../framework/resource.js'
import { derived, object } from '../framework/structures.js'
import { shown } from '../framework/views.js'
import { notWrittenByApi } from '../people/owners.js'

export const ORDER_STATUSES = [
  'pending',
  'paid',
  'failed',
  'expired',
  'refunded',
  'partially_refunded',
  'free',
] as const
export const PRODUCT_TYPES = [
  'course',
  'membership_plan',
  'digital_product',
  'event_ticket',
] as const

const readOnly = { readOnly: true } as const
const moneyOut = (description?: string) =>
  money({ readOnly: true, ...(description && { description }) })

/** A list computed by the server (never parsed from a write), each item made of `items`. */
const computedList = (items: Record<string, Field>, description: string) =>
  derived(shown.list(shown.field(object(items))), { description })

const itemMembers = {
  id: text({ required: true }),
  product_type: enumeration(PRODUCT_TYPES, { required: true }),
  product_id: text({ required: true }),
  price_id: text({ nullable: true, description: 'A membership plan price' }),
  event_id: text({ nullable: true, description: 'On event_ticket lines' }),
  name: text({ required: true }),
  quantity: integer({ required: true, min: 1 }),
  unit_price: money({ required: true }),
  discount: money({ required: true }),
  total: money({ required: true }),
}

const refundMembers = {
  id: text({ required: true }),
  order_line_id: text({
    nullable: true,
    description:
      'The line (an `items[].id` of this order) the refund is for; null: the whole order, whose refund is allocated over its lines and tax (src/api/money/refunds.ts)',
  }),
  amount: money({ required: true }),
  reason: text({ nullable: true }),
  created_at: instant({ required: true }),
}

const usd = (amount: unknown, currency: string) => ({ amount: Number(amount ?? 0), currency })

/**
 * Orders (DOMAIN.md §4.3.7), read only: checkout and the dashboard write them. Line items and
 * refunds are embedded; amounts are Money objects in the order's currency. `{id}` also takes
 * the human-readable number (`/api/v1/orders/1042`).
 */
export const orders = defineResource({
  object: 'order',
  collection: 'orders',
  table: 'orders',
  idPrefix: 'ord',
  summary: 'Orders with their line items, payment state and refunds (read only)',
  scopes: { read: 'orders:read' },
  writeRoles: [],
  ownership: notWrittenByApi('Orders are made by checkout'),
  operations: ['list', 'get'],
  slugField: 'number',
  defaultSort: '-created_at',
  fields: {
    number: text({ ...readOnly, sortable: true, search: true, description: 'Human-readable' }),
    status: enumeration(ORDER_STATUSES, {
      ...readOnly,
      filter: true,
      description: 'free = 100 % coupon or a free product',
    }),
    student_id: reference('stu', { ...readOnly, nullable: true, filter: true }),
    customer: object(
      { email: email({ required: true }), name: text({ nullable: true }) },
      { ...readOnly, description: 'A snapshot taken at purchase' },
    ),
    items: computedList(
      itemMembers as Record<string, ReturnType<typeof text>>,
      'The line items, in order',
    ),
    currency: text({ ...readOnly, description: 'ISO 4217' }),
    subtotal: moneyOut('Sum of the lines before discounts'),
    discount_total: moneyOut(),
    tax_total: moneyOut(),
    total: money({ ...readOnly, sortable: true, description: 'What the customer paid' }),
    amount_refunded: moneyOut('Sum of the refunds'),
    coupon: object(
      {
        id: text({ required: true }),
        code: text({ nullable: true, description: 'As typed at checkout' }),
      },
      { ...readOnly, nullable: true },
    ),
    payment: object(
      {
        provider: enumeration(['stripe', 'paypal', 'manual', 'other'], { required: true }),
        method: text({ required: true, description: 'card, wallet, bank_transfer …' }),
        provider_reference: text({ nullable: true }),
        last4: text({ nullable: true }),
      },
      readOnly,
    ),
    refunds: computedList(
      refundMembers as Record<string, ReturnType<typeof text>>,
      'Refunds issued in the dashboard, oldest first',
    ),
    subscription_id: reference('sub', {
      ...readOnly,
      nullable: true,
      filter: true,
      description: 'The subscription this order paid (first payment or a renewal)',
    }),
    source: enumeration(['checkout', 'manual', 'api', 'import'], { ...readOnly, filter: true }),
    paid_at: instant({ ...readOnly, nullable: true, filter: true }),
  },
  filters: {
    email: {
      field: email(),
      reads: ['customer_email'],
      where: (_eb, _op, value) => sql<boolean>`lower(customer_email) = ${String(value)}`,
      description: "The customer's e-mail, any case",
    },
    coupon_id: {
      field: reference('cpn'),
      reads: ['coupon_id'],
      where: (eb, _op, value) => eb('coupon_id', '=', String(value)),
    },
    product_type: {
      field: enumeration(PRODUCT_TYPES),
      reads: ['items'],
      where: (_eb, _op, value) =>
        sql<boolean>`exists (select 1 from order_items where order_items.order_id = orders.id and order_items.product_type = ${String(value)})`,
      description: 'Orders with a line of this type',
    },
    product_id: {
      field: text({ max: 64, pattern: /^[a-z]+_[A-Za-z0-9_-]+$/ }),
      reads: ['items'],
      where: (_eb, _op, value) =>
        sql<boolean>`exists (select 1 from order_items where order_items.order_id = orders.id and (order_items.product_id = ${String(value)} or order_items.event_id = ${String(value)}))`,
      description: 'Orders with a line for this product (an event id matches its tickets)',
    },
  },
  async enrich(db, rows) {
    const ids = rows.map((r) => r.id)
    const [items, refunds] = await Promise.all([
      db
        .selectFrom('order_items')
        .selectAll()
        .where('order_id', 'in', ids)
        .orderBy('order_id')
        .orderBy('position')
        .execute(),
      db
        .selectFrom('refunds')
        .selectAll()
        .where('order_id', 'in', ids)
        .orderBy('created_at')
        .orderBy('id')
        .execute(),
    ])
    for (const row of rows) {
      const currency = row.currency
      row.items = items
        .filter((item) => item.order_id === row.id)
        .map((item) => ({
          id: item.id,
          product_type: item.product_type,
          product_id: item.product_id,
          price_id: item.price_id ?? null,
          event_id: item.event_id ?? null,
          name: item.name,
          quantity: Number(item.quantity),
          unit_price: usd(item.unit_amount, currency),
          discount: usd(item.discount_amount, currency),
          total: usd(item.total_amount, currency),
        }))
      row.refunds = refunds
        .filter((refund) => refund.order_id === row.id)
        .map((refund) => ({
          id: refund.id,
          order_line_id: refund.order_line_id ?? null,
          amount: usd(refund.amount, currency),
          reason: refund.reason ?? null,
          created_at: timestamp(Number(refund.created_at)),
        }))
    }
  },
  computed: (row) => {
    const currency = row.currency
    return {
      customer: { email: row.customer_email, name: row.customer_name ?? null },
      items: row.items ?? [],
      subtotal: usd(row.subtotal, currency),
      discount_total: usd(row.discount_total, currency),
      tax_total: usd(row.tax_total, currency),
      total: usd(row.total, currency),
      amount_refunded: usd(row.amount_refunded, currency),
      coupon: row.coupon_id ? { id: row.coupon_id, code: row.coupon_code ?? null } : null,
      refunds: row.refunds ?? [],
    }
  },
})
