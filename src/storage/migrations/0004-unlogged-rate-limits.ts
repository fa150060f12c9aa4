import { sql } from 'kysely'
import type { Migration } from './index.js'

/**
 * Rate-limit counters skip PostgreSQL's write-ahead log. Every counted request updates one
 * row, and requests from one address all update the same one: logged, each update holds the
 * row until its commit is flushed to disk, so a burst queues behind fsync. Unlogged, a commit
 * waits for nothing; a crash or a failover resets the counters, which is harmless.
 */
export const unloggedRateLimits: Migration = {
  id: '0004-unlogged-rate-limits',
  async up(db, dialect) {
    if (dialect === 'postgres') await sql`alter table rate_limits set unlogged`.execute(db)
  },
}
