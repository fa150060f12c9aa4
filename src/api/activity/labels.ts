import type { AppDeps } from '../../app-deps.js'
import { byName } from '../framework/resource-db.js'
import { RESOURCES } from '../registry.js'
import { nameFieldOf } from './declarations.js'

/** Where the records that are not declared resources keep their names. */
const OTHER_NAMES: Readonly<Record<string, readonly [table: string, column: string]>> = {
  event_attendee: ['event_attendees', 'name'],
  file: ['files', 'filename'],
  account: ['users', 'name'],
}

/** The table and name column of a record type (its `title` or `name` field), if it has one. */
function nameColumnOf(type: string): readonly [string, string] | undefined {
  const resource = RESOURCES.find((r) => r.object === type)
  if (!resource) return OTHER_NAMES[type]
  const column = nameFieldOf(type)
  return column ? [resource.table, column] : undefined
}

/**
 * The current names of the records a page of activity changed, as `type:id` → name: read
 * when shown (a record renamed since shows its name of now). A record since deleted has
 * none, and is shown by the name its changes recorded, or its type and id.
 */
export async function labelsOf(
  deps: AppDeps,
  rows: ReadonlyArray<Readonly<Record<string, unknown>>>,
): Promise<Map<string, string>> {
  const byType = new Map<string, Set<string>>()
  for (const row of rows) {
    if (typeof row.record_type !== 'string' || typeof row.record_id !== 'string') continue
    const ids = byType.get(row.record_type) ?? new Set<string>()
    ids.add(row.record_id)
    byType.set(row.record_type, ids)
  }
  const db = byName(deps.database.db)
  const labels = new Map<string, string>()
  for (const [type, ids] of byType) {
    const where = nameColumnOf(type)
    if (!where) continue
    const [table, column] = where
    const found = await db
      .selectFrom(table)
      .select(['id', column])
      .where('id', 'in', [...ids])
      .execute()
    for (const row of found)
      if (typeof row[column] === 'string') labels.set(`${type}:${row.id}`, row[column])
  }
  return labels
}
