import { sql } from 'kysely'
import type { Db } from './schema.js'

/** The verdict on one more request in a fixed window. */
export interface RateLimitVerdict {
  readonly allowed: boolean
  /** Seconds until the window ends, for `Retry-After`. */
  readonly retryAfter: number
}

/**
 * Fixed-window counters kept in the database, so every instance on one PostgreSQL counts
 * together. One upsert per counted request; old windows are swept by {@link sweep}.
 */
export function createRateLimiter(db: Db) {
  return {
    async hit(
      bucket: string,
      subject: string,
      limit: number,
      windowMs: number,
      now: number,
    ): Promise<RateLimitVerdict> {
      const windowStart = Math.floor(now / windowMs) * windowMs
      const key = `${bucket}:${windowStart}:${subject}`
      const { rows } = await sql<{ count: number }>`
        insert into rate_limits (key, window_start, count) values (${key}, ${windowStart}, 1)
        on conflict (key) do update set count = rate_limits.count + 1
        returning count`.execute(db)
      const count = Number(rows[0]?.count ?? 1)
      return {
        allowed: count <= limit,
        retryAfter: Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000)),
      }
    },
    /** The current count without adding to it, for limits that count only failures. */
    async peek(
      bucket: string,
      subject: string,
      limit: number,
      windowMs: number,
      now: number,
    ): Promise<RateLimitVerdict> {
      const windowStart = Math.floor(now / windowMs) * windowMs
      const row = await db
        .selectFrom('rate_limits')
        .select('count')
        .where('key', '=', `${bucket}:${windowStart}:${subject}`)
        .executeTakeFirst()
      return {
        allowed: Number(row?.count ?? 0) < limit,
        retryAfter: Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000)),
      }
    },
    async sweep(before: number): Promise<void> {
      await db.deleteFrom('rate_limits').where('window_start', '<', before).execute()
    },
  }
}

export type RateLimiter = ReturnType<typeof createRateLimiter>
