import { sql } from 'kysely'
import type { Migration } from './index.js'

/**
 * Commerce: orders with their line items and refunds (read only through the API; written by
 * checkout, the dashboard and the demo seed) and coupons. Amounts are integer minor units,
 * times epoch-ms `bigint`, `payment` and the coupon's structured members JSON text, booleans
 * 0/1 integers on both engines.
 */
export const commerce: Migration = {
  id: '0005-commerce',
  async up(db) {
    await db.schema
      .createTable('coupons')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('code', 'text', (c) => c.notNull())
      .addColumn('name', 'text')
      .addColumn('description', 'text')
      .addColumn('discount', 'text', (c) => c.notNull())
      .addColumn('applies_to', 'text', (c) => c.notNull())
      .addColumn('duration', 'text', (c) => c.notNull())
      .addColumn('max_redemptions', 'integer')
      .addColumn('max_redemptions_per_customer', 'integer')
      .addColumn('min_order_amount', 'text')
      .addColumn('starts_at', 'bigint')
      .addColumn('expires_at', 'bigint')
      .addColumn('enabled', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute()
    // Codes are stored upper-case; the expression keeps them unique whatever the writer did.
    await db.schema
      .createIndex('coupons_code_unique')
      .on('coupons')
      .unique()
      .expression(sql`upper(code)`)
      .execute()
    await db.schema
      .createIndex('coupons_created_idx')
      .on('coupons')
      .columns(['created_at', 'id'])
      .execute()

    await db.schema
      .createTable('orders')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('number', 'text', (c) => c.notNull().unique())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('student_id', 'text', (c) => c.references('students.id').onDelete('set null'))
      .addColumn('customer_email', 'text', (c) => c.notNull())
      .addColumn('customer_name', 'text')
      .addColumn('currency', 'text', (c) => c.notNull())
      .addColumn('subtotal', 'integer', (c) => c.notNull())
      .addColumn('discount_total', 'integer', (c) => c.notNull())
      .addColumn('tax_total', 'integer', (c) => c.notNull())
      .addColumn('total', 'integer', (c) => c.notNull())
      .addColumn('amount_refunded', 'integer', (c) => c.notNull())
      .addColumn('coupon_id', 'text', (c) => c.references('coupons.id').onDelete('set null'))
      .addColumn('coupon_code', 'text')
      .addColumn('payment', 'text', (c) => c.notNull())
      .addColumn('subscription_id', 'text')
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('paid_at', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute()
    await db.schema.createIndex('orders_paid_idx').on('orders').column('paid_at').execute()
    await db.schema
      .createIndex('orders_status_idx')
      .on('orders')
      .columns(['status', 'created_at'])
      .execute()
    await db.schema.createIndex('orders_student_idx').on('orders').column('student_id').execute()
    await db.schema.createIndex('orders_coupon_idx').on('orders').column('coupon_id').execute()
    await db.schema
      .createIndex('orders_email_idx')
      .on('orders')
      .expression(sql`lower(customer_email)`)
      .execute()
    await db.schema
      .createIndex('orders_created_idx')
      .on('orders')
      .columns(['created_at', 'id'])
      .execute()

    await db.schema
      .createTable('order_items')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('order_id', 'text', (c) => c.notNull().references('orders.id').onDelete('cascade'))
      .addColumn('position', 'integer', (c) => c.notNull())
      .addColumn('product_type', 'text', (c) => c.notNull())
      .addColumn('product_id', 'text', (c) => c.notNull())
      .addColumn('price_id', 'text')
      .addColumn('event_id', 'text')
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('quantity', 'integer', (c) => c.notNull())
      .addColumn('unit_amount', 'integer', (c) => c.notNull())
      .addColumn('discount_amount', 'integer', (c) => c.notNull())
      .addColumn('total_amount', 'integer', (c) => c.notNull())
      .execute()
    await db.schema
      .createIndex('order_items_order_idx')
      .on('order_items')
      .columns(['order_id', 'position'])
      .execute()
    await db.schema
      .createIndex('order_items_product_idx')
      .on('order_items')
      .columns(['product_type', 'product_id'])
      .execute()
    await db.schema
      .createIndex('order_items_event_idx')
      .on('order_items')
      .column('event_id')
      .execute()

    await db.schema
      .createTable('refunds')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('order_id', 'text', (c) => c.notNull().references('orders.id').onDelete('cascade'))
      .addColumn('amount', 'integer', (c) => c.notNull())
      .addColumn('reason', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute()
    await db.schema.createIndex('refunds_order_idx').on('refunds').column('order_id').execute()
    await db.schema.createIndex('refunds_created_idx').on('refunds').column('created_at').execute()
  },
}
