import type { Migration } from './index.js'

/**
 * The first resources of the business API: idempotency keys, the school's settings (new
 * columns of `school`), its appearance, course categories, courses and their curriculum
 * (sections and lessons, removed with their course), lecturers, posts and pages, students
 * with their enrollments and lesson progress; and the team state of accounts
 * (`users.status`, invitations). Structured members
 * (links, plans, colours) are JSON text; booleans are 0/1 integers on both engines.
 */
export const schoolResources: Migration = {
  id: '0003-school-resources',
  async up(db) {
    await db.schema
      .alterTable('users')
      .addColumn('status', 'text', (c) => c.notNull().defaultTo('active'))
      .execute()
    await db.schema.alterTable('users').addColumn('invited_at', 'bigint').execute()
    await db.schema.alterTable('users').addColumn('invited_by', 'text').execute()

    await db.schema
      .createTable('idempotency_keys')
      .addColumn('key_digest', 'text', (c) => c.primaryKey())
      .addColumn('request_digest', 'text', (c) => c.notNull())
      .addColumn('status', 'integer')
      .addColumn('body', 'text')
      .addColumn('location', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute()
    await db.schema
      .createIndex('idempotency_keys_created_idx')
      .on('idempotency_keys')
      .column('created_at')
      .execute()

    // SQLite adds one column per statement.
    const schoolColumns = [
      'tagline',
      'description',
      'locale',
      'timezone',
      'currency',
      'country',
      'contact_email',
      'support_email',
      'social_links',
      'seo_defaults',
      'legal',
      'signup',
      'features',
    ]
    for (const column of schoolColumns)
      await db.schema.alterTable('school').addColumn(column, 'text').execute()

    await db.schema
      .createTable('appearance')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('logo_url', 'text')
      .addColumn('logo_dark_url', 'text')
      .addColumn('favicon_url', 'text')
      .addColumn('colors', 'text')
      .addColumn('typography', 'text')
      .addColumn('color_scheme', 'text', (c) => c.notNull())
      .addColumn('navigation', 'text')
      .addColumn('footer', 'text')
      .addColumn('course_player_theme', 'text', (c) => c.notNull())
      .addColumn('homepage_layout', 'text', (c) => c.notNull())
      .addColumn('custom_css', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute()

    await db.schema
      .createTable('course_categories')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('slug', 'text', (c) => c.notNull().unique())
      .addColumn('description', 'text')
      .addColumn('position', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute()

    await db.schema
      .createTable('courses')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('slug', 'text', (c) => c.notNull().unique())
      .addColumn('subtitle', 'text')
      .addColumn('description', 'text')
      .addColumn('cover_image_url', 'text')
      .addColumn('promo_video_url', 'text')
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('visibility', 'text', (c) => c.notNull())
      .addColumn('featured', 'integer', (c) => c.notNull())
      .addColumn('category_id', 'text', (c) => c.references('course_categories.id'))
      .addColumn('tags', 'text')
      .addColumn('level', 'text', (c) => c.notNull())
      .addColumn('language', 'text')
      .addColumn('pricing_plans', 'text', (c) => c.notNull())
      .addColumn('enrollment', 'text')
      .addColumn('certificate_enabled', 'integer', (c) => c.notNull())
      .addColumn('comments_enabled', 'integer', (c) => c.notNull())
      .addColumn('reviews_enabled', 'integer', (c) => c.notNull())
      .addColumn('seo', 'text')
      .addColumn('published_at', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute()
    await db.schema
      .createIndex('courses_listing_idx')
      .on('courses')
      .columns(['status', 'visibility', 'created_at'])
      .execute()
    await db.schema
      .createIndex('courses_category_idx')
      .on('courses')
      .column('category_id')
      .execute()
    await db.schema
      .createIndex('courses_created_idx')
      .on('courses')
      .columns(['created_at', 'id'])
      .execute()

    await db.schema
      .createTable('sections')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('course_id', 'text', (c) =>
        c.notNull().references('courses.id').onDelete('cascade'),
      )
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('description', 'text')
      .addColumn('position', 'integer', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('drip', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute()
    await db.schema
      .createIndex('sections_course_idx')
      .on('sections')
      .columns(['course_id', 'position'])
      .execute()

    await db.schema
      .createTable('lessons')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('course_id', 'text', (c) =>
        c.notNull().references('courses.id').onDelete('cascade'),
      )
      .addColumn('section_id', 'text', (c) =>
        c.notNull().references('sections.id').onDelete('cascade'),
      )
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('position', 'integer', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('is_free_preview', 'integer', (c) => c.notNull())
      .addColumn('duration_seconds', 'integer')
      .addColumn('body', 'text')
      .addColumn('video', 'text')
      .addColumn('attachments', 'text')
      .addColumn('embed_url', 'text')
      .addColumn('comments_enabled', 'integer', (c) => c.notNull())
      .addColumn('completion_rule', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute()
    await db.schema
      .createIndex('lessons_section_idx')
      .on('lessons')
      .columns(['section_id', 'position'])
      .execute()
    await db.schema.createIndex('lessons_course_idx').on('lessons').column('course_id').execute()

    await db.schema
      .createTable('lecturers')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('slug', 'text', (c) => c.notNull().unique())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('headline', 'text')
      .addColumn('bio', 'text')
      .addColumn('avatar_url', 'text')
      .addColumn('links', 'text')
      .addColumn('visible', 'integer', (c) => c.notNull())
      .addColumn('featured', 'integer', (c) => c.notNull())
      .addColumn('position', 'integer', (c) => c.notNull())
      .addColumn('email', 'text')
      .addColumn('member_id', 'text', (c) => c.references('users.id').onDelete('set null'))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute()

    await db.schema
      .createTable('posts')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('slug', 'text', (c) => c.notNull().unique())
      .addColumn('subtitle', 'text')
      .addColumn('excerpt', 'text')
      .addColumn('body', 'text', (c) => c.notNull())
      .addColumn('cover_image_url', 'text')
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('access', 'text', (c) => c.notNull())
      .addColumn('tags', 'text')
      .addColumn('author_lecturer_id', 'text', (c) =>
        c.references('lecturers.id').onDelete('set null'),
      )
      .addColumn('seo', 'text')
      .addColumn('comments_enabled', 'integer', (c) => c.notNull())
      .addColumn('published_at', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute()
    await db.schema
      .createIndex('posts_listing_idx')
      .on('posts')
      .columns(['status', 'published_at'])
      .execute()

    await db.schema
      .createTable('pages')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('slug', 'text', (c) => c.notNull().unique())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('blocks', 'text', (c) => c.notNull())
      .addColumn('seo', 'text')
      .addColumn('show_in_navigation', 'integer', (c) => c.notNull())
      .addColumn('published_at', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute()

    await db.schema
      .createTable('students')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('email', 'text', (c) => c.notNull().unique())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('user_id', 'text', (c) => c.references('users.id').onDelete('set null'))
      .addColumn('phone', 'text')
      .addColumn('locale', 'text')
      .addColumn('timezone', 'text')
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('tags', 'text')
      .addColumn('marketing_opt_in', 'integer', (c) => c.notNull())
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('notes', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute()
    await db.schema
      .createIndex('students_created_idx')
      .on('students')
      .columns(['created_at', 'id'])
      .execute()

    await db.schema
      .createTable('enrollments')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('student_id', 'text', (c) =>
        c.notNull().references('students.id').onDelete('cascade'),
      )
      .addColumn('course_id', 'text', (c) => c.notNull().references('courses.id'))
      .addColumn('pricing_plan_id', 'text')
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('started_at', 'bigint', (c) => c.notNull())
      .addColumn('completed_at', 'bigint')
      .addColumn('expires_at', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addUniqueConstraint('enrollments_student_course_unique', ['student_id', 'course_id'])
      .execute()
    await db.schema
      .createIndex('enrollments_course_idx')
      .on('enrollments')
      .column('course_id')
      .execute()

    await db.schema
      .createTable('lesson_progress')
      .addColumn('enrollment_id', 'text', (c) =>
        c.notNull().references('enrollments.id').onDelete('cascade'),
      )
      .addColumn('lesson_id', 'text', (c) =>
        c.notNull().references('lessons.id').onDelete('cascade'),
      )
      .addColumn('completed_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('lesson_progress_pk', ['enrollment_id', 'lesson_id'])
      .execute()
  },
}
