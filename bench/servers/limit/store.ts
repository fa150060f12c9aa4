import { createRequire } from 'node:module'
import type BetterSqlite3 from 'better-sqlite3'
import pg from 'pg'
import {
  ARRAY_SQL,
  CALLER_WIDTH,
  POSTGRES_REFRESH,
  SQL,
  SQLITE_ROTATION,
  soldSql,
  ticketsSql,
} from './sql.js'

/** The limit server's database: what it reads and writes, on SQLite or on PostgreSQL. */

export type Row = Record<string, unknown>
/** A row handed over as an array, its columns in the order its statement selects them. */
export type Cells = readonly unknown[]

/** The reads, on SQLite (better-sqlite3) or PostgreSQL (pg). */
export interface Store {
  /** The caller's columns (sql.ts LIVE_TOKEN), or undefined when the token is not live. */
  liveToken(digest: string, now: number): Promise<Cells | undefined>
  /** One row: the caller's columns (all null when not live), then the course's (null: none). */
  callerAndCourse(column: 'id' | 'slug', key: string, digest: string, now: number): Promise<Cells>
  course(column: 'id' | 'slug', key: string, visible: boolean): Promise<Cells | undefined>
  courses(visible: boolean, limit: number): Promise<Cells[]>
  countCourses(visible: boolean): Promise<number>
  event(column: 'id' | 'slug', key: string): Promise<Row | undefined>
  events(limit: number): Promise<Row[]>
  countEvents(): Promise<number>
  tickets(eventIds: readonly string[]): Promise<Row[]>
  sold(eventIds: readonly string[]): Promise<Row[]>
  /** The refresh grant's checks and rotation as one atomic step. */
  refresh(write: RefreshWrite): Promise<RefreshOutcome>
}

/** A refresh's write: the presented token, the client, and the new tokens. */
export interface RefreshWrite {
  readonly now: number
  readonly rotates: string
  readonly clientId: string
  readonly accessDigest: string
  readonly accessExpires: number
  readonly refreshDigest: string
  /** now + a refresh token's lifetime (the grant's maximum may cut it shorter). */
  readonly refreshLifetimeEnd: number
  readonly grantMaximumMs: number
}

/** What the refresh found: the client (method undefined: none), the scope when rotated. */
export interface RefreshOutcome {
  readonly method: string | undefined
  readonly grantTypes: string
  /** The rotated token's scope; undefined: a check failed or it was rotated already. */
  readonly scope: string | undefined
}

const courseKey = (column: 'id' | 'slug', visible: boolean) =>
  visible
    ? column === 'id'
      ? 'visibleCourseById'
      : 'visibleCourseBySlug'
    : column === 'id'
      ? 'courseById'
      : 'courseBySlug'

const NO_CLIENT: RefreshOutcome = { method: undefined, grantTypes: '', scope: undefined }

/** better-sqlite3 as src/storage/sqlite-driver.ts picks it: 13 on Node 22 and later, 12 before. */
export function sqliteStore(file: string): Store {
  const require = createRequire(import.meta.url)
  const driver =
    Number(process.versions.node.split('.')[0]) >= 22 ? 'better-sqlite3-node22' : 'better-sqlite3'
  const Database: typeof BetterSqlite3 = require(driver)
  const db = new Database(file, { fileMustExist: true })
  db.pragma('busy_timeout = 5000')
  // Each $N appears once and in order: SQLite's positional ? in its place.
  const prepare = (text: string) => db.prepare(text.replace(/\$\d+/g, '?'))
  const s = Object.fromEntries(
    Object.entries(SQL).map(([name, text]) => [name, prepare(text)]),
  ) as Record<keyof typeof SQL, BetterSqlite3.Statement>
  const a = Object.fromEntries(
    Object.entries(ARRAY_SQL).map(([name, text]) => [name, prepare(text).raw()]),
  ) as Record<keyof typeof ARRAY_SQL, BetterSqlite3.Statement>
  const byCount = (make: (count: number) => string) => {
    const made = new Map<number, BetterSqlite3.Statement>()
    return (count: number) => {
      let statement = made.get(count)
      if (!statement) {
        statement = prepare(make(count))
        made.set(count, statement)
      }
      return statement
    }
  }
  const tickets = byCount(ticketsSql)
  const sold = byCount(soldSql)
  const count = (statement: BetterSqlite3.Statement) => Number((statement.get() as { n: number }).n)
  const countRaw = (statement: BetterSqlite3.Statement) => Number((statement.get() as Cells)[0])
  const write = Object.fromEntries(
    Object.entries(SQLITE_ROTATION).map(([name, text]) => [name, db.prepare(text)]),
  ) as Record<keyof typeof SQLITE_ROTATION, BetterSqlite3.Statement>
  // The read, the checks and the writes in one transaction (nothing else runs between them).
  const refresh = db.transaction((w: RefreshWrite): RefreshOutcome => {
    const r = a.clientWithRefresh.get(w.rotates, w.clientId) as Cells | undefined
    if (!r) return NO_CLIENT
    const method = r[0] as string
    const grantTypes = r[1] as string
    const grantEnd = (r[10] as number) + w.grantMaximumMs
    if (
      method !== 'none' ||
      !grantTypes.includes('refresh_token') ||
      r[2] === null ||
      r[3] !== w.clientId ||
      r[6] !== null ||
      (r[5] as number) <= w.now ||
      r[7] === null ||
      r[12] !== null ||
      (r[11] as number) <= w.now ||
      grantEnd <= w.now ||
      r[13] !== 'active' ||
      r[14] !== null
    )
      return { method, grantTypes, scope: undefined }
    if (write.rotate.run(w.now, w.rotates).changes === 0)
      return { method, grantTypes, scope: undefined }
    const grantId = r[7] as string
    const scope = r[4] as string
    const refreshExpires = Math.min(w.refreshLifetimeEnd, grantEnd)
    write.access.run(w.accessDigest, grantId, w.clientId, r[8], scope, r[9], w.now, w.accessExpires)
    write.refresh.run(w.refreshDigest, grantId, w.clientId, scope, w.now, refreshExpires)
    write.grant.run(w.now, Math.max(w.accessExpires, refreshExpires), grantId)
    return { method, grantTypes, scope }
  })
  return {
    liveToken: async (digest, now) => a.liveToken.get(digest, now) as Cells | undefined,
    callerAndCourse: async (column, key, digest, now) =>
      (column === 'id' ? a.callerAndCourseById : a.callerAndCourseBySlug).get(
        digest,
        now,
        key,
      ) as Cells,
    course: async (column, key, visible) =>
      a[courseKey(column, visible)].get(key) as Cells | undefined,
    courses: async (visible, limit) =>
      (visible ? a.visibleCourses : a.courses).all(limit) as Cells[],
    countCourses: async (visible) => countRaw(visible ? a.countVisibleCourses : a.countCourses),
    event: async (column, key) =>
      (column === 'id' ? s.eventById : s.eventBySlug).get(key) as Row | undefined,
    events: async (limit) => s.events.all(limit) as Row[],
    countEvents: async () => count(s.countEvents),
    tickets: async (ids) => tickets(ids.length).all(...ids) as Row[],
    sold: async (ids) => sold(ids.length).all(...ids) as Row[],
    // BEGIN IMMEDIATE: the write lock first, waiting as busy_timeout allows. A deferred
    // transaction that reads and then writes fails at once (SQLITE_BUSY) when another
    // process (Portico, idle between its phases) wrote since its read began.
    refresh: async (w) => refresh.immediate(w),
  }
}

/**
 * PostgreSQL through a pool of 10 (one per connection of the load), every query a named
 * prepared statement, the hot ones read as arrays; bigint columns read as numbers, as
 * Portico reads them.
 */
export function postgresStore(url: string): Store {
  pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value))
  const pool = new pg.Pool({ connectionString: url, max: 10 })
  const query = async (name: string, text: string, values: unknown[]) =>
    (await pool.query({ name, text, values })).rows as Row[]
  const one = async (name: keyof typeof SQL, values: unknown[]) =>
    (await query(name, SQL[name], values))[0]
  const count = async (name: keyof typeof SQL) => Number((await one(name, []))?.n ?? 0)
  const cells = async (name: keyof typeof ARRAY_SQL, values: unknown[]) =>
    (await pool.query<unknown[]>({ name, text: ARRAY_SQL[name], values, rowMode: 'array' }))
      .rows as Cells[]
  const noCaller: Cells = new Array(CALLER_WIDTH).fill(null)
  return {
    liveToken: async (digest, now) => (await cells('liveToken', [digest, now]))[0],
    callerAndCourse: async (column, key, digest, now) =>
      (
        await cells(column === 'id' ? 'callerAndCourseById' : 'callerAndCourseBySlug', [
          digest,
          now,
          key,
        ])
      )[0] ?? noCaller,
    course: async (column, key, visible) => (await cells(courseKey(column, visible), [key]))[0],
    courses: (visible, limit) => cells(visible ? 'visibleCourses' : 'courses', [limit]),
    countCourses: async (visible) =>
      Number((await cells(visible ? 'countVisibleCourses' : 'countCourses', []))[0]?.[0] ?? 0),
    event: (column, key) => one(column === 'id' ? 'eventById' : 'eventBySlug', [key]),
    events: (limit) => query('events', SQL.events, [limit]),
    countEvents: () => count('countEvents'),
    tickets: (ids) => query(`tickets${ids.length}`, ticketsSql(ids.length), [...ids]),
    sold: (ids) => query(`sold${ids.length}`, soldSql(ids.length), [...ids]),
    refresh: async (w) => {
      const [r] = (
        await pool.query<unknown[]>({
          name: 'refresh',
          text: POSTGRES_REFRESH,
          values: [
            w.rotates,
            w.clientId,
            w.now,
            w.accessDigest,
            w.accessExpires,
            w.refreshDigest,
            w.refreshLifetimeEnd,
            w.grantMaximumMs,
          ],
          rowMode: 'array',
        })
      ).rows
      if (!r || r[0] === null) return NO_CLIENT
      return {
        method: r[0] as string,
        grantTypes: r[1] as string,
        scope: r[3] === true ? (r[2] as string) : undefined,
      }
    },
  }
}
