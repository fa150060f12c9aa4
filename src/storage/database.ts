import { mkdirSync } from 'node:fs'
import path from 'node:path'
import SqliteDatabase from 'better-sqlite3'
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely'
import pg from 'pg'
import type { DatabaseConfig } from '../config.js'
import type { Db, Schema } from './schema.js'

/** An open database: the Kysely handle, which engine it runs on, and how to close it. */
export interface Database {
  readonly db: Db
  readonly dialect: DatabaseConfig['dialect']
  /** True when the database answers a trivial query. */
  ping(): Promise<boolean>
  close(): Promise<void>
}

const INT8_OID = 20

/** Opens SQLite (WAL, created with its folder on first use) or a PostgreSQL pool. */
export function openDatabase(config: DatabaseConfig): Database {
  const db = new Kysely<Schema>({ dialect: createDialect(config) })
  return {
    db,
    dialect: config.dialect,
    ping: async () => {
      try {
        await sql`select 1`.execute(db)
        return true
      } catch {
        return false
      }
    },
    close: () => db.destroy(),
  }
}

function createDialect(config: DatabaseConfig) {
  if (config.dialect === 'sqlite') {
    if (config.file !== ':memory:') mkdirSync(path.dirname(config.file), { recursive: true })
    const sqlite = new SqliteDatabase(config.file)
    sqlite.pragma('journal_mode = WAL')
    sqlite.pragma('synchronous = NORMAL')
    sqlite.pragma('busy_timeout = 5000')
    sqlite.pragma('foreign_keys = ON')
    return new SqliteDialect({ database: sqlite })
  }
  const pool = new pg.Pool({
    connectionString: config.url,
    max: 10,
    connectionTimeoutMillis: 5000,
    // Times are epoch milliseconds in bigint columns: read them back as numbers.
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8_OID
          ? (value: string) => Number(value)
          : pg.types.getTypeParser(oid, format ?? 'text')) as typeof pg.types.getTypeParser,
    },
  })
  // An idle client that errors (the server restarted) must not crash the process.
  pool.on('error', () => {})
  return new PostgresDialect({ pool })
}

/**
 * Runs `fn` in a transaction that holds the database-wide exclusive lock: `BEGIN IMMEDIATE`
 * on SQLite, a transaction-scoped advisory lock on PostgreSQL. Migrations and first-start
 * set-up use it so that two processes starting together do the work once.
 */
export async function withExclusiveLock<T>(
  database: Database,
  fn: (db: Db) => Promise<T>,
): Promise<T> {
  if (database.dialect === 'postgres') {
    return database.db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(7345210001)`.execute(trx)
      return fn(trx)
    })
  }
  return database.db.connection().execute(async (conn) => {
    await sql`begin immediate`.execute(conn)
    try {
      const result = await fn(conn)
      await sql`commit`.execute(conn)
      return result
    } catch (error) {
      await sql`rollback`.execute(conn)
      throw error
    }
  })
}
