import type { Migration } from './index.js'

/**
 * The community area: comments on lessons and posts (threaded; `thread_id` is the top-level
 * comment's id, its own for a top-level one), and forms with their submissions. Whether a
 * comment has a staff reply is derived from its replies, never stored. Form fields, answers
 * and UTM data are JSON text.
 */
export const community: Migration = {
  id: '0009-community',
  async up(db) {
    await db.schema
      .createTable('comments')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('target_type', 'text', (c) => c.notNull())
      .addColumn('target_id', 'text', (c) => c.notNull())
      .addColumn('course_id', 'text', (c) => c.references('courses.id').onDelete('cascade'))
      .addColumn('parent_id', 'text', (c) => c.references('comments.id').onDelete('cascade'))
      .addColumn('thread_id', 'text', (c) => c.notNull())
      .addColumn('author_type', 'text', (c) => c.notNull())
      .addColumn('author_id', 'text', (c) => c.notNull())
      .addColumn('body', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('likes_count', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute()
    await db.schema
      .createIndex('comments_target_idx')
      .on('comments')
      .columns(['target_type', 'target_id'])
      .execute()
    await db.schema.createIndex('comments_thread_idx').on('comments').column('thread_id').execute()
    await db.schema.createIndex('comments_parent_idx').on('comments').column('parent_id').execute()
    await db.schema
      .createIndex('comments_created_idx')
      .on('comments')
      .columns(['created_at', 'id'])
      .execute()

    await db.schema
      .createTable('forms')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('fields', 'text', (c) => c.notNull())
      .addColumn('linked_to', 'text')
      .addColumn('success_message', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute()

    await db.schema
      .createTable('form_submissions')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('form_id', 'text', (c) => c.notNull().references('forms.id').onDelete('cascade'))
      .addColumn('email', 'text')
      .addColumn('name', 'text')
      .addColumn('student_id', 'text', (c) => c.references('students.id').onDelete('set null'))
      .addColumn('answers', 'text', (c) => c.notNull())
      .addColumn('source_url', 'text')
      .addColumn('utm', 'text')
      .addColumn('submitted_at', 'bigint', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute()
    await db.schema
      .createIndex('form_submissions_form_idx')
      .on('form_submissions')
      .columns(['form_id', 'created_at'])
      .execute()
    await db.schema
      .createIndex('form_submissions_email_idx')
      .on('form_submissions')
      .column('email')
      .execute()
  },
}
