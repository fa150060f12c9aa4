import { compiledQuery } from './compiled-query.js'
import type { Db } from './schema.js'
import { toUser, USER_COLUMNS, type User } from './users.js'

/** A signed-in browser: the person, and when they proved who they are. */
export interface Session {
  readonly idDigest: string
  readonly user: User
  readonly authTime: number
  readonly expiresAt: number
}

/** Compiled once: every page a signed-in person opens reads the session. */
const liveSession = compiledQuery((db: Db, idDigest: string, now: number) =>
  db
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .select(USER_COLUMNS.map((column) => `users.${column}` as const))
    .select(['sessions.id_digest', 'sessions.auth_time', 'sessions.expires_at'])
    .where('sessions.id_digest', '=', idDigest)
    .where('sessions.expires_at', '>', now)
    .where('users.status', '=', 'active')
    .where('users.disabled_at', 'is', null),
)

/** Server-side sign-in sessions, so every instance on one database shares them. */
export function createSessionStore(db: Db) {
  return {
    async insert(input: {
      idDigest: string
      userId: string
      authTime: number
      now: number
      expiresAt: number
    }): Promise<void> {
      await db
        .insertInto('sessions')
        .values({
          id_digest: input.idDigest,
          user_id: input.userId,
          auth_time: input.authTime,
          created_at: input.now,
          expires_at: input.expiresAt,
        })
        .execute()
    },
    /** The live session with this digest, with its user, who is active (see `isActive`). */
    async find(idDigest: string, now: number): Promise<Session | undefined> {
      const [row] = await liveSession(db, idDigest, now)
      if (!row) return undefined
      return {
        idDigest: row.id_digest,
        user: toUser(row),
        authTime: row.auth_time,
        expiresAt: row.expires_at,
      }
    },
    async delete(idDigest: string): Promise<void> {
      await db.deleteFrom('sessions').where('id_digest', '=', idDigest).execute()
    },
    async sweep(now: number): Promise<void> {
      await db.deleteFrom('sessions').where('expires_at', '<=', now).execute()
    },
  }
}

export type SessionStore = ReturnType<typeof createSessionStore>
