import type { Migration } from './index.js'

/**
 * Events (DOMAIN.md §4.3.10): webinars and in-person events, their tickets (removed with the
 * event) and attendees. `location`, `lecturer_ids` and `recording` are JSON text, booleans
 * 0/1 integers, times epoch-ms `bigint`, prices integer minor units. `order_id` names an
 * order of the commerce tables but has no foreign key: orders are written by checkout and
 * the commerce seed, which may fill it after the attendee exists.
 */
export const events: Migration = {
  id: '0006-events',
  async up(db) {
    await db.schema
      .createTable('events')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('slug', 'text', (c) => c.notNull().unique())
      .addColumn('description', 'text')
      .addColumn('cover_image_url', 'text')
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('format', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('visibility', 'text', (c) => c.notNull())
      .addColumn('starts_at', 'bigint', (c) => c.notNull())
      .addColumn('ends_at', 'bigint', (c) => c.notNull())
      .addColumn('timezone', 'text', (c) => c.notNull())
      .addColumn('location', 'text')
      .addColumn('capacity', 'integer')
      .addColumn('lecturer_ids', 'text')
      .addColumn('course_id', 'text', (c) => c.references('courses.id').onDelete('set null'))
      .addColumn('registration_open', 'integer', (c) => c.notNull())
      .addColumn('recording', 'text')
      .addColumn('published_at', 'bigint')
      .addColumn('canceled_at', 'bigint')
      .addColumn('cancellation_reason', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute()
    await db.schema
      .createIndex('events_listing_idx')
      .on('events')
      .columns(['status', 'visibility', 'starts_at'])
      .execute()
    await db.schema
      .createIndex('events_created_idx')
      .on('events')
      .columns(['created_at', 'id'])
      .execute()
    await db.schema.createIndex('events_course_idx').on('events').column('course_id').execute()

    await db.schema
      .createTable('event_tickets')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('event_id', 'text', (c) => c.notNull().references('events.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('description', 'text')
      .addColumn('price_amount', 'integer', (c) => c.notNull())
      .addColumn('currency', 'text', (c) => c.notNull())
      .addColumn('quantity', 'integer')
      .addColumn('position', 'integer', (c) => c.notNull())
      .addColumn('sales_start_at', 'bigint')
      .addColumn('sales_end_at', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute()
    await db.schema
      .createIndex('event_tickets_event_idx')
      .on('event_tickets')
      .columns(['event_id', 'position'])
      .execute()

    await db.schema
      .createTable('event_attendees')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('event_id', 'text', (c) => c.notNull().references('events.id').onDelete('cascade'))
      .addColumn('ticket_id', 'text', (c) => c.references('event_tickets.id').onDelete('set null'))
      .addColumn('student_id', 'text', (c) => c.references('students.id').onDelete('set null'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('email', 'text', (c) => c.notNull())
      .addColumn('order_id', 'text')
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('registered_at', 'bigint', (c) => c.notNull())
      .addColumn('checked_in_at', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute()
    await db.schema
      .createIndex('event_attendees_event_idx')
      .on('event_attendees')
      .columns(['event_id', 'registered_at'])
      .execute()
    await db.schema
      .createIndex('event_attendees_email_idx')
      .on('event_attendees')
      .columns(['event_id', 'email'])
      .execute()
    await db.schema
      .createIndex('event_attendees_ticket_idx')
      .on('event_attendees')
      .column('ticket_id')
      .execute()
    await db.schema
      .createIndex('event_attendees_order_idx')
      .on('event_attendees')
      .column('order_id')
      .execute()
    await db.schema
      .createIndex('event_attendees_student_idx')
      .on('event_attendees')
      .column('student_id')
      .execute()
  },
}
