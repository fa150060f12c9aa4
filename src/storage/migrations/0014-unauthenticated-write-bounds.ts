import type { Migration } from './index.js'

/**
 * Issue 16, "Unauthenticated writes are bounded": each pending authorization request of a
 * browser not signed in records the digest of its client address, so the requests of one
 * address can be counted and capped; and the sweeper finds self-registered clients that
 * never completed an authorization by an index of their own.
 */
export const unauthenticatedWriteBounds: Migration = {
  id: '0014-unauthenticated-write-bounds',
  async up(db) {
    await db.schema
      .alterTable('authorization_requests')
      .addColumn('address_digest', 'text')
      .execute()
    await db.schema
      .createIndex('authorization_requests_address_idx')
      .on('authorization_requests')
      .columns(['address_digest', 'expires_at'])
      .execute()
    await db.schema
      .createIndex('clients_unused_idx')
      .on('clients')
      .columns(['kind', 'last_used_at', 'created_at'])
      .execute()
  },
}
