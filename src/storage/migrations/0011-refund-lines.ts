import type { Migration } from './index.js'

/**
 * A refund may name the order line it is for (`order_line_id`; null: the order as a whole,
 * allocated over its lines and tax). The writer checks that the line belongs to the refund's
 * order (src/api/money/refunds.ts, checkRefund); deleting a line (with its order) clears it.
 */
export const refundLines: Migration = {
  id: '0011-refund-lines',
  async up(db) {
    await db.schema
      .alterTable('refunds')
      .addColumn('order_line_id', 'text', (c) =>
        c.references('order_items.id').onDelete('set null'),
      )
      .execute()
  },
}
