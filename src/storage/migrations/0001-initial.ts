import type { Migration } from './index.js'

export const initial: Migration = {
  id: '0001-initial',
  async up(db) {
    await db.schema
      .createTable('signing_keys')
      .addColumn('kid', 'text', (c) => c.primaryKey())
      .addColumn('alg', 'text', (c) => c.notNull())
      .addColumn('public_jwk', 'text', (c) => c.notNull())
      .addColumn('private_jwk_sealed', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('retired_at', 'bigint')
      .execute()

    await db.schema
      .createTable('clients')
      .addColumn('client_id', 'text', (c) => c.primaryKey())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('client_name', 'text')
      .addColumn('secret_digest', 'text')
      .addColumn('token_endpoint_auth_method', 'text', (c) => c.notNull())
      .addColumn('application_type', 'text', (c) => c.notNull())
      .addColumn('redirect_uris', 'text', (c) => c.notNull())
      .addColumn('grant_types', 'text', (c) => c.notNull())
      .addColumn('response_types', 'text', (c) => c.notNull())
      .addColumn('scope', 'text')
      .addColumn('id_token_signed_response_alg', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('last_used_at', 'bigint')
      .execute()
    await db.schema.createIndex('clients_kind_idx').on('clients').column('kind').execute()

    await db.schema
      .createTable('rate_limits')
      .addColumn('key', 'text', (c) => c.primaryKey())
      .addColumn('window_start', 'bigint', (c) => c.notNull())
      .addColumn('count', 'integer', (c) => c.notNull())
      .execute()
  },
}
