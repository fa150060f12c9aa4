import type { Migration } from './index.js'

/**
 * Issue 21, "What did this app do?": a record of every change made with an access token,
 * written in the change's own transaction, and a count per grant of the writes refused for
 * scope or role. Neither names a grant or client by foreign key: revoking an app, and the
 * sweeper deleting its grant or client later, keeps its history (client name and URL are
 * copied into each record for that reason).
 */
export const activity: Migration = {
  id: '0015-activity',
  async up(db) {
    await db.schema
      .createTable('activity')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      // A record never changes: equal to created_at, kept for the API's list conventions.
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addColumn('user_id', 'text', (c) => c.notNull())
      .addColumn('client_id', 'text', (c) => c.notNull())
      .addColumn('client_name', 'text')
      .addColumn('client_url', 'text')
      .addColumn('grant_id', 'text', (c) => c.notNull())
      .addColumn('operation', 'text', (c) => c.notNull())
      .addColumn('record_type', 'text')
      .addColumn('record_id', 'text')
      .addColumn('changes', 'text', (c) => c.notNull())
      .execute()
    await db.schema
      .createIndex('activity_created_idx')
      .on('activity')
      .columns(['created_at', 'id'])
      .execute()
    await db.schema
      .createIndex('activity_client_idx')
      .on('activity')
      .columns(['client_id', 'created_at'])
      .execute()
    await db.schema
      .createIndex('activity_user_idx')
      .on('activity')
      .columns(['user_id', 'created_at'])
      .execute()
    await db.schema
      .createIndex('activity_record_idx')
      .on('activity')
      .columns(['record_type', 'record_id'])
      .execute()
    await db.schema
      .createTable('activity_refusals')
      .addColumn('grant_id', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'text', (c) => c.notNull())
      .addColumn('client_id', 'text', (c) => c.notNull())
      .addColumn('count', 'integer', (c) => c.notNull())
      .addColumn('last_at', 'bigint', (c) => c.notNull())
      .execute()
  },
}
