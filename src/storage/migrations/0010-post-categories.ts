import type { Migration } from './index.js'

/** Categories of the blog (DOMAIN.md §4.3.14): their table, and the category of each post. */
export const postCategories: Migration = {
  id: '0010-post-categories',
  async up(db) {
    await db.schema
      .createTable('post_categories')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('slug', 'text', (c) => c.notNull().unique())
      .addColumn('description', 'text')
      .addColumn('position', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute()
    await db.schema
      .alterTable('posts')
      .addColumn('category_id', 'text', (c) => c.references('post_categories.id'))
      .execute()
    await db.schema.createIndex('posts_category_idx').on('posts').column('category_id').execute()
  },
}
