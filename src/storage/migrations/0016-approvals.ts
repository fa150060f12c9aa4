import type { Migration } from './index.js'

/**
 * Issue 35, "an agent's consequential call waits for a yes": the approvals a held call waits
 * for, the owners' per-operation confirmation settings, and on each recorded change who
 * approved it and when. An approval names its grant and client by value, not by foreign key,
 * like the activity record: revoking the app keeps what it asked for.
 */
export const approvals: Migration = {
  id: '0016-approvals',
  async up(db) {
    await db.schema
      .createTable('approvals')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('grant_id', 'text', (c) => c.notNull())
      .addColumn('client_id', 'text', (c) => c.notNull())
      .addColumn('user_id', 'text', (c) => c.notNull())
      .addColumn('operation', 'text', (c) => c.notNull())
      // SHA-256 (hex) of the canonical JSON of the call's params, query and body.
      .addColumn('arguments_digest', 'text', (c) => c.notNull())
      .addColumn('level', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('description', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('decided_by', 'text')
      .addColumn('decided_at', 'bigint')
      .addColumn('used_at', 'bigint')
      .execute()
    await db.schema
      .createIndex('approvals_request_idx')
      .on('approvals')
      .columns(['grant_id', 'operation', 'arguments_digest'])
      .execute()
    await db.schema
      .createIndex('approvals_created_idx')
      .on('approvals')
      .column('created_at')
      .execute()
    await db.schema
      .createTable('approval_policies')
      .addColumn('operation', 'text', (c) => c.primaryKey())
      .addColumn('level', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute()
    await db.schema.alterTable('activity').addColumn('approval_id', 'text').execute()
    await db.schema.alterTable('activity').addColumn('approved_by', 'text').execute()
    await db.schema.alterTable('activity').addColumn('approved_at', 'bigint').execute()
  },
}
