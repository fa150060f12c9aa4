import { sql } from 'kysely'
import { digest } from '../platform/crypto.js'
import { cannotBeStored } from './lookup.js'
import type { Db } from './schema.js'

/** The verdict on one more request in a fixed window. */
export interface RateLimitVerdict {
  readonly allowed: boolean
  /** Seconds until the window ends, for `Retry-After`. */
  readonly retryAfter: number
}

/**
 * Fixed-window counters shared by every instance: `limit` requests per `windowMs` for one
 * `subject` (an address, an account) in one `bucket` (what is being limited).
 */
export interface RateLimiter {
  /** Counts one more request and says whether it is within the limit. */
  hit(
    bucket: string,
    subject: string,
    limit: number,
    windowMs: number,
    now: number,
  ): Promise<RateLimitVerdict>
  /** The current count without adding to it, for limits that count only failures. */
  peek(
    bucket: string,
    subject: string,
    limit: number,
    windowMs: number,
    now: number,
  ): Promise<RateLimitVerdict>
  /** Deletes windows that ended before `before`, where counters do not expire by themselves. */
  sweep(before: number): Promise<void>
  /** True when the counters' store answers; the database is checked on its own. */
  ping(): Promise<boolean>
  close(): Promise<void>
}

/** The window `now` falls in, and the seconds left in it. */
export function windowOf(now: number, windowMs: number): { start: number; retryAfter: number } {
  const start = Math.floor(now / windowMs) * windowMs
  return { start, retryAfter: Math.max(1, Math.ceil((start + windowMs - now) / 1000)) }
}

/**
 * Counters kept in the database, so every instance on one PostgreSQL counts together. One
 * upsert per counted request; old windows are swept by {@link RateLimiter.sweep}.
 */
export function createDatabaseRateLimiter(db: Db): RateLimiter {
  return {
    async hit(bucket, subject, limit, windowMs, now) {
      const window = windowOf(now, windowMs)
      const key = counterKey(bucket, window.start, subject)
      const { rows } = await sql<{ count: number }>`
        insert into rate_limits (key, window_start, count) values (${key}, ${window.start}, 1)
        on conflict (key) do update set count = rate_limits.count + 1
        returning count`.execute(db)
      const count = Number(rows[0]?.count ?? 1)
      return { allowed: count <= limit, retryAfter: window.retryAfter }
    },
    async peek(bucket, subject, limit, windowMs, now) {
      const window = windowOf(now, windowMs)
      const row = await db
        .selectFrom('rate_limits')
        .select('count')
        .where('key', '=', counterKey(bucket, window.start, subject))
        .executeTakeFirst()
      return { allowed: Number(row?.count ?? 0) < limit, retryAfter: window.retryAfter }
    },
    async sweep(before) {
      await db.deleteFrom('rate_limits').where('window_start', '<', before).execute()
    },
    ping: async () => true,
    close: async () => {},
  }
}

/**
 * The row key of one counter. A subject is whatever the client sent (a client_id, an
 * e-mail address); one PostgreSQL cannot store, holding U+0000, is counted by its digest.
 */
function counterKey(bucket: string, windowStart: number, subject: string): string {
  return `${bucket}:${windowStart}:${cannotBeStored(subject) ? `#${digest(subject)}` : subject}`
}
