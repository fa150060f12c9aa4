import { type Kysely, sql } from 'kysely'
import { type Database, withExclusiveLock } from './database.js'
import { migrations } from './migrations/index.js'

/**
 * Applies every migration not yet recorded, in order, under the exclusive lock, so it is
 * idempotent and safe when several processes start at once. Returns the ids it applied.
 */
export async function migrate(database: Database, now: number = Date.now()): Promise<string[]> {
  return withExclusiveLock(database, async (db) => {
    await sql`create table if not exists portico_migrations (id text primary key, applied_at bigint not null)`.execute(
      db,
    )
    const done = new Set(
      (await db.selectFrom('portico_migrations').select('id').execute()).map((r) => r.id),
    )
    const applied: string[] = []
    for (const migration of migrations) {
      if (done.has(migration.id)) continue
      // A migration sees no typed tables: it describes tables the typed schema may not know yet.
      await migration.up(db as Kysely<unknown>, database.dialect)
      await db
        .insertInto('portico_migrations')
        .values({ id: migration.id, applied_at: now })
        .execute()
      applied.push(migration.id)
    }
    return applied
  })
}
