import type { Migration } from './index.js'

/**
 * Storage: uploaded files (their records; the bytes on disk beside SQLite, or in
 * `file_chunks` on PostgreSQL so that every instance sees them) and digital products, whose
 * downloadable files are file ids inside the `files` JSON list. Money is JSON text, repeated
 * as `price_amount` + `currency` for queries; times epoch-ms `bigint`.
 */
export const storage: Migration = {
  id: '0008-storage',
  async up(db, dialect) {
    await db.schema
      .createTable('files')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('filename', 'text', (c) => c.notNull())
      .addColumn('content_type', 'text', (c) => c.notNull())
      .addColumn('size', 'bigint', (c) => c.notNull())
      .addColumn('checksum_sha256', 'text', (c) => c.notNull())
      .addColumn('purpose', 'text', (c) => c.notNull())
      .addColumn('visibility', 'text', (c) => c.notNull())
      .addColumn('width', 'integer')
      .addColumn('height', 'integer')
      .addColumn('storage', 'text', (c) => c.notNull())
      .addColumn('uploaded_by', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute()

    await db.schema
      .createTable('file_chunks')
      .addColumn('file_id', 'text', (c) => c.notNull().references('files.id').onDelete('cascade'))
      .addColumn('position', 'integer', (c) => c.notNull())
      .addColumn('data', dialect === 'postgres' ? 'bytea' : 'blob', (c) => c.notNull())
      .addPrimaryKeyConstraint('file_chunks_pk', ['file_id', 'position'])
      .execute()

    await db.schema
      .createTable('digital_products')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('slug', 'text', (c) => c.notNull().unique())
      .addColumn('description', 'text')
      .addColumn('cover_image_url', 'text')
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('visibility', 'text', (c) => c.notNull())
      .addColumn('price', 'text', (c) => c.notNull())
      .addColumn('price_amount', 'integer', (c) => c.notNull())
      .addColumn('currency', 'text', (c) => c.notNull())
      .addColumn('compare_at_price', 'text')
      .addColumn('files', 'text', (c) => c.notNull())
      .addColumn('download_limit', 'integer')
      .addColumn('access_days', 'integer')
      .addColumn('license_text', 'text')
      .addColumn('published_at', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute()
    await db.schema
      .createIndex('digital_products_status_idx')
      .on('digital_products')
      .columns(['status', 'created_at'])
      .execute()
  },
}
