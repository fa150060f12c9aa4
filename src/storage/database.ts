import { mkdirSync } from 'node:fs'
import path from 'node:path'
import type BetterSqlite3 from 'better-sqlite3'
import {
  Kysely,
  type SqliteDatabase as KyselySqliteDatabase,
  PostgresDialect,
  type PostgresPool,
  type PostgresPoolClient,
  SqliteDialect,
  sql,
} from 'kysely'
import type pg from 'pg'
import { type DatabaseConfig, type DatabasePool, parseConfig } from '../config.js'
import { lazyModule } from '../platform/lazy-module.js'
import type { PoolUse } from '../platform/metrics.js'
import { type DirectRunner, preparedName, runDirectly } from './compiled-query.js'
import type { Db, Schema } from './schema.js'
import { FALLBACK_CHECKPOINT_PAGES, startCheckpointer } from './sqlite-checkpointer.js'
import { trackVersions } from './sqlite-data-version.js'
import { SqliteDatabase } from './sqlite-driver.js'

/** An open database: the Kysely handle, which engine it runs on, and how to close it. */
export interface Database {
  readonly db: Db
  readonly dialect: DatabaseConfig['dialect']
  /** True when the database answers a trivial query within a few seconds. */
  ping(): Promise<boolean>
  /** How the PostgreSQL pool is used right now; undefined on SQLite. */
  poolUse(): PoolUse | undefined
  /**
   * A number that moves whenever data read before may have changed: at every write this
   * process runs, and at every commit another connection (a CLI command, another process
   * on the same file) made. Reads may be served from memory while it stays put (see
   * read-cache.ts). Undefined when that cannot be known: on PostgreSQL, where other
   * instances write unseen, and on SQLite while a transaction is open on the connection
   * (SQLite then answers from that transaction's snapshot, blind to newer commits).
   */
  dataVersion(): number | undefined
  close(): Promise<void>
}

const INT8_OID = 20
/** The parser of bigint columns, asked for at every column of every result (pg's `addFields`). */
const int8AsNumber = (value: string) => Number(value)

/** The PostgreSQL driver, loaded once a PostgreSQL database is opened (SQLite never needs it). */
const postgresDriver = lazyModule<typeof pg>('pg')

/** How long /readyz waits for the database before calling it unavailable. */
const PING_TIMEOUT_MS = 3000

/** The configuration's defaults, for a database opened without one (unit tests). */
const DEFAULT_POOL: DatabasePool = parseConfig({}).databasePool

/** Opens SQLite (WAL, created with its folder on first use) or a PostgreSQL pool. */
export function openDatabase(config: DatabaseConfig, pool: DatabasePool = DEFAULT_POOL): Database {
  const { dialect, poolUse, dataVersion, direct, closed } = createDialect(config, pool)
  const db = new Kysely<Schema>({ dialect })
  runDirectly(db, direct)
  return {
    db,
    dialect: config.dialect,
    dataVersion,
    ping: async () => {
      let timer: NodeJS.Timeout | undefined
      const timeout = new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), PING_TIMEOUT_MS)
      })
      const answer = sql`select 1`.execute(db).then(
        () => true,
        () => false,
      )
      try {
        return await Promise.race([answer, timeout])
      } finally {
        clearTimeout(timer)
      }
    },
    poolUse,
    close: async () => {
      await db.destroy()
      await closed?.()
    },
  }
}

function createDialect(config: DatabaseConfig, limits: DatabasePool) {
  if (config.dialect === 'sqlite') {
    if (config.file !== ':memory:') mkdirSync(path.dirname(config.file), { recursive: true })
    const sqlite = new SqliteDatabase(config.file)
    sqlite.pragma('journal_mode = WAL')
    sqlite.pragma('synchronous = NORMAL')
    // With the checkpointer, a checkpoint in the commit itself is only the fallback; should
    // the thread fail, commits checkpoint at SQLite's default again.
    const checkpointer =
      config.file === ':memory:'
        ? undefined
        : startCheckpointer(
            config.file,
            () => {
              if (sqlite.open) sqlite.pragma('wal_autocheckpoint = 1000')
            },
            () => {
              // The tail the thread could not copy, outside any transaction: what lets the
              // next commit start the WAL over (see startCheckpointer).
              if (!sqlite.open || sqlite.inTransaction) return
              try {
                sqlite.pragma('wal_checkpoint(PASSIVE)')
              } catch {}
            },
          )
    if (checkpointer) sqlite.pragma(`wal_autocheckpoint = ${FALLBACK_CHECKPOINT_PAGES}`)
    sqlite.pragma('busy_timeout = 5000')
    sqlite.pragma('foreign_keys = ON')
    // Negative: a size in KiB, whatever the page size.
    sqlite.pragma(`cache_size = ${-limits.sqliteCacheMib * 1024}`)
    const versions = trackVersions(sqlite)
    let stopping: Promise<void> | undefined
    const database = withStatementCache(sqlite, versions.written, () => {
      stopping = checkpointer?.stop()
    })
    // Outside a transaction a statement runs on its own, as Kysely would run it, whatever
    // Kysely holds: better-sqlite3 runs it to the end before anything else. Inside one
    // (another request's, between its statements) it waits for Kysely's connection.
    const direct: DirectRunner = (text, parameters) => {
      if (!sqlite.open || sqlite.inTransaction) return undefined
      try {
        const statement = database.prepare(text)
        if (statement.reader) return Promise.resolve(statement.all(parameters as unknown[]))
        statement.run(parameters as unknown[])
        return Promise.resolve([])
      } catch (error) {
        return Promise.reject(error)
      }
    }
    return {
      dialect: new SqliteDialect({ database }),
      poolUse: () => undefined,
      dataVersion: versions.current,
      direct,
      // The checkpointer's own connection, closed too: its files go with the database's.
      closed: () => stopping ?? Promise.resolve(),
    }
  }
  // Every wait is bounded, so a database that goes away answers 503s, never hangs: a
  // connection within half the timeout, a statement within it (cancelled by the server),
  // and a little more on the client for a network that went silent.
  const driver = postgresDriver()
  const pool = new driver.Pool({
    connectionString: config.url,
    max: limits.size,
    connectionTimeoutMillis: Math.ceil(limits.timeoutMs / 2),
    statement_timeout: limits.timeoutMs,
    query_timeout: limits.timeoutMs + 2000,
    idle_in_transaction_session_timeout: limits.timeoutMs * 3,
    keepAlive: true,
    application_name: 'portico',
    // Times are epoch milliseconds in bigint columns: read them back as numbers.
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8_OID
          ? int8AsNumber
          : driver.types.getTypeParser(oid, format ?? 'text')) as typeof pg.types.getTypeParser,
    },
  })
  // An idle client that errors (the server restarted) must not crash the process.
  pool.on('error', () => {})
  const preparing = preparingPool(pool)
  const direct: DirectRunner = async (text, parameters) => {
    const connection = await preparing.connect()
    try {
      const result = await connection.query(text, parameters as unknown[])
      return result.rows
    } finally {
      connection.release()
    }
  }
  return {
    dialect: new PostgresDialect({ pool: preparing }),
    direct,
    poolUse: (): PoolUse => ({
      max: limits.size,
      total: pool.totalCount,
      idle: pool.idleCount,
      waiting: pool.waitingCount,
    }),
    dataVersion: () => undefined,
  }
}

/**
 * Runs `text` as the named prepared statement `name`. The query is made from the text, the
 * name set after: pg copies a query given as an object, descriptor by descriptor
 * (`cloneQueryConfig`, 2.8 % of Portico's CPU on a PostgreSQL 304, npm run bench profiled),
 * but not one given as text.
 */
function runNamed(
  client: pg.PoolClient,
  name: string,
  text: string,
  values: unknown[],
): Promise<pg.QueryResult> {
  return new Promise((resolve, reject) => {
    const query: pg.Query & { name?: string } = new (postgresDriver().Query)(
      text,
      values,
      (error, result) => (error ? reject(error) : resolve(result as pg.QueryResult)),
    )
    query.name = name
    client.query(query)
  })
}

/** Kysely's transaction statements (a `rollback to` a savepoint stays inside). */
const TRANSACTION_START = /^\s*(begin|start transaction)\b/i
const TRANSACTION_END = /^\s*(commit|end|rollback(?!\s+to\b))\b/i

/**
 * The pool as Kysely sees it, its connections running the hot statements (those marked by
 * `preparedOnPostgres`, see compiled-query.ts) as named prepared statements: each connection
 * parses and plans such a text once, then only binds and executes it. Everything else goes
 * as Kysely sends it, and so does everything inside a transaction: there a statement that
 * failed could not simply be sent again (see the fallback below).
 */
function preparingPool(pool: pg.Pool): PostgresPool {
  const wrapped = new WeakMap<pg.PoolClient, PostgresPoolClient>()
  const wrap = (client: pg.PoolClient): PostgresPoolClient => {
    /** Names this connection can no longer use (see the fallback below): sent unnamed. */
    const stale = new Set<string>()
    /** Between Kysely's `begin` and its `commit` or `rollback`. */
    let inTransaction = false
    const query = async (sqlText: string, parameters: readonly unknown[]) => {
      const values = parameters as unknown[]
      if (values.length === 0 && TRANSACTION_START.test(sqlText)) inTransaction = true
      else if (values.length === 0 && TRANSACTION_END.test(sqlText)) inTransaction = false
      const name = preparedName(sqlText)
      // Only outside transactions, where a failed statement can simply be sent again.
      if (name === undefined || inTransaction || stale.has(name)) {
        return client.query(sqlText, values)
      }
      try {
        return await runNamed(client, name, sqlText, values)
      } catch (error) {
        // 0A000 "cached plan must not change result type": a newer Portico migrated a table
        // this statement reads (a rolling upgrade). 26000 "prepared statement does not
        // exist": the driver closed it after failing to send a value. Either way the name
        // cannot be used again on this connection, which sends the text unnamed from now on,
        // as Kysely would. Outside a transaction nothing ran, so sending it again is safe.
        const code = (error as { code?: unknown }).code
        if (code !== '0A000' && code !== '26000') throw error
        stale.add(name)
        return client.query(sqlText, values)
      }
    }
    return {
      // Kysely calls only query(sql, parameters): the cursor form needs a `cursor` option.
      query: query as unknown as PostgresPoolClient['query'],
      release: () => client.release(),
    }
  }
  return {
    async connect() {
      const client = await pool.connect()
      let connection = wrapped.get(client)
      if (!connection) {
        connection = wrap(client)
        wrapped.set(client, connection)
      }
      return connection
    },
    end: () => pool.end(),
  }
}

/** Distinct SQL texts kept prepared; queries are built from a fixed set of shapes. */
const STATEMENT_CACHE_SIZE = 500

/**
 * better-sqlite3 as Kysely sees it, with each statement prepared once per SQL text. Kysely
 * prepares every query anew, and on the hot paths (a bearer check, a token request)
 * preparing took as long as running (npm run bench, profiled). A statement is reused only
 * once its previous run has returned, which better-sqlite3's synchronous calls guarantee,
 * except for a streamed `iterate`, which gets a statement of its own.
 */
function withStatementCache(
  sqlite: BetterSqlite3.Database,
  onWrite: () => void,
  onClose: () => void,
): KyselySqliteDatabase {
  const cache = new Map<string, BetterSqlite3.Statement>()
  const prepare = (source: string) => {
    let statement = cache.get(source)
    if (statement && !statement.busy) return statement
    statement = sqlite.prepare(source)
    if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value as string)
    cache.set(source, statement)
    return statement
  }
  return {
    // Kysely runs each statement right after preparing it: a write is counted just before
    // it runs, and nothing read after that can be taken for what was read before it. (The
    // version is only read outside transactions, see trackVersions.)
    prepare(source) {
      const statement = prepare(source)
      if (!statement.readonly) onWrite()
      return statement
    },
    close: () => {
      onClose()
      sqlite.close()
    },
  }
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
