import type { ResourceDb } from './store.js'

/** The tables whose rows are kept in order by a `position` among their siblings. */
type Ordered = 'sections' | 'lessons'

/**
 * Puts record `id` at `position` (0-based, clamped; the end when undefined) among the rows of
 * `table` whose `column` equals `scope`, renumbering the others 0…n. Returns the position the
 * record takes; the caller stores it with the record's own write.
 */
export async function placeAt(
  db: ResourceDb,
  table: Ordered,
  column: 'course_id' | 'section_id',
  scope: string,
  id: string,
  position: number | undefined,
): Promise<number> {
  const siblings = (
    await db
      .selectFrom(table)
      .select(['id', 'position'])
      .where(column, '=', scope)
      .where('id', '<>', id)
      .orderBy('position')
      .orderBy('id')
      .execute()
  ).map((r) => r.id)
  const at = Math.max(0, Math.min(position ?? siblings.length, siblings.length))
  siblings.splice(at, 0, id)
  await renumber(db, table, siblings, id)
  return at
}

/** Sets each row's position to its index in `ids`, skipping `except` (written by the caller). */
export async function renumber(
  db: ResourceDb,
  table: Ordered,
  ids: readonly string[],
  except?: string,
  extra: Record<string, unknown> = {},
): Promise<void> {
  for (const [index, rowId] of ids.entries()) {
    if (rowId === except) continue
    await db
      .updateTable(table)
      .set({ position: index, ...extra })
      .where('id', '=', rowId)
      .execute()
  }
}

/** Closes the gap record `leaving` leaves in its old scope. */
export async function compact(
  db: ResourceDb,
  table: Ordered,
  column: 'course_id' | 'section_id',
  scope: string,
  leaving: string,
): Promise<void> {
  const ids = (
    await db
      .selectFrom(table)
      .select('id')
      .where(column, '=', scope)
      .where('id', '<>', leaving)
      .orderBy('position')
      .orderBy('id')
      .execute()
  ).map((r) => r.id)
  await renumber(db, table, ids)
}
