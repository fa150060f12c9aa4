import type { Row, StoredRow } from './fields.js'
import type { ResourceDb } from './store.js'

/** A record's child rows (a plan's prices, an event's tickets) and the list a write gives. */
export interface ChildRows {
  readonly table: string
  /** The column of the child rows that holds the record's id, and the id. */
  readonly parent: { readonly column: string; readonly id: string }
  /** The rows stored now (each with its `id`). */
  readonly stored: readonly StoredRow[]
  /**
   * The rows the write asks for, each with its `id`: a stored one's id updates it (only the
   * columns given that differ), a new id inserts it.
   */
  readonly wanted: readonly StoredRow[]
  /** What becomes of a stored row the list leaves out: deleted, or these columns set. */
  readonly leftOut: 'delete' | Row
  /** Columns only an insert sets (`created_at`). */
  readonly onInsert?: Row
  /** Columns every update sets (`updated_at`). */
  readonly onUpdate?: Row
}

/**
 * Writes child rows from a submitted list, in the transaction of `db` (the record's write):
 * rows left out are deleted (or changed, e.g. deactivated), kept rows updated where they
 * differ, new rows inserted under the parent. Checking the list is the resource's own
 * business, done before, so that a refused write changes nothing.
 */
export async function writeChildren(db: ResourceDb, rows: ChildRows): Promise<void> {
  const { table, parent, stored, wanted } = rows
  const byId = new Map(stored.map((row) => [row.id, row]))
  const kept = new Set(wanted.map((row) => row.id))
  const leaving = stored.filter((row) => !kept.has(row.id))
  if (rows.leftOut === 'delete') {
    if (leaving.length > 0)
      await db
        .deleteFrom(table)
        .where(
          'id',
          'in',
          leaving.map((row) => row.id),
        )
        .execute()
  } else for (const row of leaving) await update(db, rows, row, rows.leftOut)
  for (const row of wanted) {
    const current = byId.get(row.id)
    if (current) await update(db, rows, current, row)
    else
      await db
        .insertInto(table)
        .values({ ...row, ...rows.onInsert, [parent.column]: parent.id })
        .execute()
  }
}

/** Sets the columns of `changes` that differ from the stored row, if any. */
async function update(
  db: ResourceDb,
  rows: ChildRows,
  current: StoredRow,
  changes: Row,
): Promise<void> {
  const differ = Object.entries(changes).filter(
    ([column, value]) => column !== 'id' && current[column] !== value,
  )
  if (differ.length === 0) return
  await db
    .updateTable(rows.table)
    .set({ ...Object.fromEntries(differ), ...rows.onUpdate })
    .where('id', '=', current.id)
    .execute()
}
