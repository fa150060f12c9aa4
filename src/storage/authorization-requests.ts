import { sql } from 'kysely'
import { compiledInsert, compiledQuery } from './compiled-query.js'
import type { Db } from './schema.js'
import type { AuthorizationRequestTable } from './tables/oauth.js'

export type AuthorizationRequestRow = AuthorizationRequestTable

// Compiled once: every authorization stores a request, then reads and consumes it at the
// decision (and binds it to the session first when the person had to sign in).
const insertRequest = compiledInsert('authorization_requests')
const requestByDigest = compiledQuery((db: Db, idDigest: string) =>
  db.selectFrom('authorization_requests').selectAll().where('id_digest', '=', idDigest),
)
const bindRequest = compiledQuery(
  (db: Db, idDigest: string, sessionDigest: string, csrfDigest: string) =>
    db
      .updateTable('authorization_requests')
      .set({ session_digest: sessionDigest, csrf_digest: csrfDigest })
      .where('id_digest', '=', idDigest)
      .where('consumed_at', 'is', null),
)
const consumeRequest = compiledQuery((db: Db, idDigest: string, now: number) =>
  db
    .updateTable('authorization_requests')
    .set({ consumed_at: now })
    .where('id_digest', '=', idDigest)
    .where('consumed_at', 'is', null)
    .where('expires_at', '>', now)
    .returning('id_digest'),
)

/** Authorization requests waiting for the person to sign in and decide. */
export function createAuthorizationRequestStore(db: Db, dialect: 'sqlite' | 'postgres' = 'sqlite') {
  return {
    async insert(row: AuthorizationRequestRow): Promise<void> {
      await insertRequest(db, row)
    },
    /**
     * Stores a request of a browser not signed in unless its address already has `cap`
     * pending (undecided, unexpired) requests; false when it has. Counting and inserting
     * are one step for every instance: SQLite runs one transaction at a time, and on
     * PostgreSQL concurrent inserts for one address wait for a lock on that address.
     */
    async insertCapped(
      row: AuthorizationRequestRow & { address_digest: string },
      cap: number,
    ): Promise<boolean> {
      return db.transaction().execute(async (trx) => {
        if (dialect === 'postgres') {
          await sql`select pg_advisory_xact_lock(7345, hashtext(${row.address_digest}))`.execute(
            trx,
          )
        }
        const { pending } = await trx
          .selectFrom('authorization_requests')
          .select((eb) => eb.fn.countAll<number | string>().as('pending'))
          .where('address_digest', '=', row.address_digest)
          .where('expires_at', '>', row.created_at)
          .where('consumed_at', 'is', null)
          .executeTakeFirstOrThrow()
        if (Number(pending) >= cap) return false
        await insertRequest(trx, row)
        return true
      })
    },
    async find(idDigest: string): Promise<AuthorizationRequestRow | undefined> {
      const [row] = await requestByDigest(db, idDigest)
      return row
    },
    /** Ties the request to the session that will decide it, with a fresh CSRF token digest. */
    async bindSession(idDigest: string, sessionDigest: string, csrfDigest: string): Promise<void> {
      await bindRequest(db, idDigest, sessionDigest, csrfDigest)
    },
    /** Marks the request decided, atomically: true for exactly one caller. */
    async consume(idDigest: string, now: number): Promise<boolean> {
      return (await consumeRequest(db, idDigest, now)).length === 1
    },
    async sweep(now: number): Promise<void> {
      await db.deleteFrom('authorization_requests').where('expires_at', '<=', now).execute()
    },
  }
}

export type AuthorizationRequestStore = ReturnType<typeof createAuthorizationRequestStore>
