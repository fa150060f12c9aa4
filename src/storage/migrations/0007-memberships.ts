import type { Migration } from './index.js'

/**
 * Memberships: plans, their prices and the subscriptions to them. A price is never edited:
 * a new amount or interval is a new row, and the old one is deactivated (`active` 0), so
 * subscriptions keep the price they signed up with. `membership_plan_prices.plan_id` has no
 * foreign key because a plan's prices are written in the same request as the plan, before
 * the framework inserts the plan row; deleting a plan deletes its prices itself. Amounts are
 * integer minor units, times epoch-ms `bigint`, structured members JSON text, booleans 0/1.
 */
export const memberships: Migration = {
  id: '0007-memberships',
  async up(db) {
    await db.schema
      .createTable('membership_plans')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('slug', 'text', (c) => c.notNull().unique())
      .addColumn('description', 'text')
      .addColumn('cover_image_url', 'text')
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('visible', 'integer', (c) => c.notNull())
      .addColumn('billing_type', 'text', (c) => c.notNull())
      .addColumn('includes', 'text', (c) => c.notNull())
      .addColumn('features', 'text', (c) => c.notNull())
      .addColumn('faq', 'text', (c) => c.notNull())
      .addColumn('position', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute()
    await db.schema
      .createIndex('membership_plans_position_idx')
      .on('membership_plans')
      .columns(['position', 'id'])
      .execute()
    await db.schema
      .createIndex('membership_plans_created_idx')
      .on('membership_plans')
      .columns(['created_at', 'id'])
      .execute()

    await db.schema
      .createTable('membership_plan_prices')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('plan_id', 'text', (c) => c.notNull())
      .addColumn('amount', 'integer', (c) => c.notNull())
      .addColumn('currency', 'text', (c) => c.notNull())
      .addColumn('interval', 'text')
      .addColumn('interval_count', 'integer')
      .addColumn('trial_days', 'integer', (c) => c.notNull())
      .addColumn('access_days', 'integer')
      .addColumn('ends_on', 'text')
      .addColumn('active', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute()
    await db.schema
      .createIndex('membership_plan_prices_plan_idx')
      .on('membership_plan_prices')
      .columns(['plan_id', 'created_at'])
      .execute()

    await db.schema
      .createTable('subscriptions')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('student_id', 'text', (c) =>
        c.notNull().references('students.id').onDelete('cascade'),
      )
      .addColumn('plan_id', 'text', (c) => c.notNull().references('membership_plans.id'))
      .addColumn('price_id', 'text', (c) => c.notNull().references('membership_plan_prices.id'))
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('amount', 'integer', (c) => c.notNull())
      .addColumn('currency', 'text', (c) => c.notNull())
      .addColumn('interval', 'text')
      .addColumn('interval_count', 'integer')
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('started_at', 'bigint', (c) => c.notNull())
      .addColumn('trial_ends_at', 'bigint')
      .addColumn('current_period_start', 'bigint', (c) => c.notNull())
      .addColumn('current_period_end', 'bigint')
      .addColumn('cancel_at_period_end', 'integer', (c) => c.notNull())
      .addColumn('canceled_at', 'bigint')
      .addColumn('cancellation_reason', 'text')
      .addColumn('ended_at', 'bigint')
      .addColumn('latest_order_id', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute()
    await db.schema
      .createIndex('subscriptions_created_idx')
      .on('subscriptions')
      .columns(['created_at', 'id'])
      .execute()
    await db.schema
      .createIndex('subscriptions_plan_idx')
      .on('subscriptions')
      .columns(['plan_id', 'status'])
      .execute()
    await db.schema
      .createIndex('subscriptions_student_idx')
      .on('subscriptions')
      .column('student_id')
      .execute()
    await db.schema
      .createIndex('subscriptions_price_idx')
      .on('subscriptions')
      .column('price_id')
      .execute()
    await db.schema
      .createIndex('subscriptions_period_end_idx')
      .on('subscriptions')
      .column('current_period_end')
      .execute()
  },
}
