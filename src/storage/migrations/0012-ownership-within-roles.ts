import type { Migration } from './index.js'

/**
 * Ownership within roles (issue 16): who created an event, so that a lecturer may change the
 * events they created as well as those they host (existing events have no known creator,
 * null: only their hosts and the school-wide writers change them); and the lecturers of a
 * course (DOMAIN.md §4.3.1 `lecturer_ids`), so that a lecturer changes the curriculum of the
 * courses they teach (existing courses list none until an editor names them).
 */
export const ownershipWithinRoles: Migration = {
  id: '0012-ownership-within-roles',
  async up(db) {
    await db.schema
      .alterTable('events')
      .addColumn('created_by', 'text', (c) => c.references('users.id').onDelete('set null'))
      .execute()
    await db.schema
      .alterTable('courses')
      .addColumn('lecturer_ids', 'text', (c) => c.notNull().defaultTo('[]'))
      .execute()
  },
}
