import type { AuthorizationRequestTable, Db } from './schema.js'

export type AuthorizationRequestRow = AuthorizationRequestTable

/** Authorization requests waiting for the person to sign in and decide. */
export function createAuthorizationRequestStore(db: Db) {
  return {
    async insert(row: AuthorizationRequestRow): Promise<void> {
      await db.insertInto('authorization_requests').values(row).execute()
    },
    async find(idDigest: string): Promise<AuthorizationRequestRow | undefined> {
      return db
        .selectFrom('authorization_requests')
        .selectAll()
        .where('id_digest', '=', idDigest)
        .executeTakeFirst()
    },
    /** Ties the request to the session that will decide it, with a fresh CSRF token digest. */
    async bindSession(idDigest: string, sessionDigest: string, csrfDigest: string): Promise<void> {
      await db
        .updateTable('authorization_requests')
        .set({ session_digest: sessionDigest, csrf_digest: csrfDigest })
        .where('id_digest', '=', idDigest)
        .where('consumed_at', 'is', null)
        .execute()
    },
    /** Marks the request decided, atomically: true for exactly one caller. */
    async consume(idDigest: string, now: number): Promise<boolean> {
      const result = await db
        .updateTable('authorization_requests')
        .set({ consumed_at: now })
        .where('id_digest', '=', idDigest)
        .where('consumed_at', 'is', null)
        .where('expires_at', '>', now)
        .executeTakeFirst()
      return Number(result.numUpdatedRows) === 1
    },
    async sweep(now: number): Promise<void> {
      await db.deleteFrom('authorization_requests').where('expires_at', '<=', now).execute()
    },
  }
}

export type AuthorizationRequestStore = ReturnType<typeof createAuthorizationRequestStore>
