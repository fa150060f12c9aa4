import type { Migration } from './index.js'

/**
 * Client ID Metadata Documents: the document URLs an operator has reviewed
 * (`portico integrations trust`), and the redirect URI of each grant, so that a person can
 * tell apart the installations of one tool that share a document URL.
 */
export const clientIdMetadataDocuments: Migration = {
  id: '0013-client-id-metadata-documents',
  async up(db) {
    await db.schema
      .createTable('trusted_client_documents')
      .addColumn('url', 'text', (c) => c.primaryKey())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute()
    await db.schema.alterTable('grants').addColumn('redirect_uri', 'text').execute()
  },
}
