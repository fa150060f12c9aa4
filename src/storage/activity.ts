import type { Db } from './schema.js'
import type { ActivityTable } from './tables/activity.js'

/** A change as recorded (see tables/activity.ts). */
export type ActivityRow = ActivityTable

/**
 * Keeps one change. `db` is the change's own transaction: the record commits or rolls back
 * with it. The client's name and kind are read there too, and copied (its row may go later).
 */
export async function insertActivity(
  db: Db,
  entry: Omit<ActivityTable, 'client_name' | 'client_url' | 'updated_at'>,
): Promise<void> {
  const client = await db
    .selectFrom('clients')
    .select(['client_name', 'kind'])
    .where('client_id', '=', entry.client_id)
    .executeTakeFirst()
  await db
    .insertInto('activity')
    .values({
      ...entry,
      updated_at: entry.created_at,
      client_name: client?.client_name ?? null,
      // A metadata-document client's id is its document's URL.
      client_url: client?.kind === 'metadata_document' ? entry.client_id : null,
    })
    .execute()
}

/** Counts a write refused to a grant for its scope or its person's role. */
export async function countRefusal(
  db: Db,
  refusal: { grantId: string; userId: string; clientId: string; now: number },
): Promise<void> {
  await db
    .insertInto('activity_refusals')
    .values({
      grant_id: refusal.grantId,
      user_id: refusal.userId,
      client_id: refusal.clientId,
      count: 1,
      last_at: refusal.now,
    })
    .onConflict((oc) =>
      oc.column('grant_id').doUpdateSet((eb) => ({
        count: eb('activity_refusals.count', '+', 1),
        last_at: refusal.now,
      })),
    )
    .execute()
}

/** The refused writes of grants, by grant id. */
export async function refusalsOf(
  db: Db,
  grantIds: readonly string[],
): Promise<Map<string, { count: number; lastAt: number }>> {
  if (grantIds.length === 0) return new Map()
  const rows = await db
    .selectFrom('activity_refusals')
    .selectAll()
    .where('grant_id', 'in', [...grantIds])
    .execute()
  return new Map(
    rows.map((r) => [r.grant_id, { count: Number(r.count), lastAt: Number(r.last_at) }]),
  )
}

/** The refused writes of every grant, or of one client's grants, most recent first. */
export function refusalsList(db: Db, clientId?: string) {
  let query = db.selectFrom('activity_refusals').selectAll().orderBy('last_at', 'desc')
  if (clientId !== undefined) query = query.where('client_id', '=', clientId)
  return query.execute()
}

/** Deletes the records, and refusal counts, older than `before` (the retention). */
export async function sweepActivity(db: Db, before: number): Promise<void> {
  await db.deleteFrom('activity').where('created_at', '<', before).execute()
  await db.deleteFrom('activity_refusals').where('last_at', '<', before).execute()
}
