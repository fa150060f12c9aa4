import type { Migration } from './index.js'

/** People, sign-in sessions, authorization requests, grants, codes and tokens. */
export const peopleAndGrants: Migration = {
  id: '0002-people-and-grants',
  async up(db) {
    await db.schema
      .createTable('school')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute()

    await db.schema
      .createTable('users')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('email', 'text', (c) => c.notNull().unique())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('password_hash', 'text', (c) => c.notNull())
      .addColumn('role', 'text', (c) => c.notNull())
      .addColumn('locale', 'text')
      .addColumn('timezone', 'text')
      .addColumn('avatar_url', 'text')
      .addColumn('bio', 'text')
      .addColumn('notification_preferences', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addColumn('disabled_at', 'bigint')
      .execute()

    await db.schema
      .createTable('sessions')
      .addColumn('id_digest', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('auth_time', 'bigint', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute()
    await db.schema.createIndex('sessions_user_idx').on('sessions').column('user_id').execute()
    await db.schema
      .createIndex('sessions_expires_idx')
      .on('sessions')
      .column('expires_at')
      .execute()

    await db.schema
      .createTable('authorization_requests')
      .addColumn('id_digest', 'text', (c) => c.primaryKey())
      .addColumn('client_id', 'text', (c) =>
        c.notNull().references('clients.client_id').onDelete('cascade'),
      )
      .addColumn('params', 'text', (c) => c.notNull())
      .addColumn('browser_digest', 'text', (c) => c.notNull())
      .addColumn('csrf_digest', 'text', (c) => c.notNull())
      .addColumn('session_digest', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('consumed_at', 'bigint')
      .execute()
    await db.schema
      .createIndex('authorization_requests_expires_idx')
      .on('authorization_requests')
      .column('expires_at')
      .execute()

    await db.schema
      .createTable('grants')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('client_id', 'text', (c) =>
        c.notNull().references('clients.client_id').onDelete('cascade'),
      )
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('scope', 'text', (c) => c.notNull())
      .addColumn('resource', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('last_used_at', 'bigint')
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('revoked_at', 'bigint')
      .execute()
    await db.schema.createIndex('grants_user_idx').on('grants').column('user_id').execute()
    await db.schema.createIndex('grants_client_idx').on('grants').column('client_id').execute()

    await db.schema
      .createTable('authorization_codes')
      .addColumn('code_digest', 'text', (c) => c.primaryKey())
      .addColumn('grant_id', 'text', (c) => c.notNull().references('grants.id').onDelete('cascade'))
      .addColumn('client_id', 'text', (c) => c.notNull())
      .addColumn('user_id', 'text', (c) => c.notNull())
      .addColumn('redirect_uri', 'text', (c) => c.notNull())
      .addColumn('code_challenge', 'text', (c) => c.notNull())
      .addColumn('scope', 'text', (c) => c.notNull())
      .addColumn('resource', 'text', (c) => c.notNull())
      .addColumn('nonce', 'text')
      .addColumn('auth_time', 'bigint', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('consumed_at', 'bigint')
      .execute()
    await db.schema
      .createIndex('authorization_codes_expires_idx')
      .on('authorization_codes')
      .column('expires_at')
      .execute()

    await db.schema
      .createTable('refresh_tokens')
      .addColumn('token_digest', 'text', (c) => c.primaryKey())
      .addColumn('grant_id', 'text', (c) => c.notNull().references('grants.id').onDelete('cascade'))
      .addColumn('client_id', 'text', (c) => c.notNull())
      .addColumn('scope', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('rotated_at', 'bigint')
      .execute()
    await db.schema
      .createIndex('refresh_tokens_grant_idx')
      .on('refresh_tokens')
      .column('grant_id')
      .execute()
    await db.schema
      .createIndex('refresh_tokens_expires_idx')
      .on('refresh_tokens')
      .column('expires_at')
      .execute()

    await db.schema
      .createTable('access_tokens')
      .addColumn('token_digest', 'text', (c) => c.primaryKey())
      .addColumn('grant_id', 'text', (c) => c.notNull().references('grants.id').onDelete('cascade'))
      .addColumn('client_id', 'text', (c) => c.notNull())
      .addColumn('user_id', 'text', (c) => c.notNull())
      .addColumn('scope', 'text', (c) => c.notNull())
      .addColumn('audience', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute()
    await db.schema
      .createIndex('access_tokens_grant_idx')
      .on('access_tokens')
      .column('grant_id')
      .execute()
    await db.schema
      .createIndex('access_tokens_expires_idx')
      .on('access_tokens')
      .column('expires_at')
      .execute()

    await db.schema
      .createTable('consents')
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('client_id', 'text', (c) =>
        c.notNull().references('clients.client_id').onDelete('cascade'),
      )
      .addColumn('scope', 'text', (c) => c.notNull())
      .addColumn('resource', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('consents_pk', ['user_id', 'client_id'])
      .execute()

    await db.schema
      .createTable('resource_servers')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('identifier', 'text', (c) => c.notNull().unique())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('secret_digest', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute()
  },
}
