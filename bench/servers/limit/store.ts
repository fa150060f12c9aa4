import { createRequire } from 'node:module'
import type BetterSqlite3 from 'better-sqlite3'
import pg from 'pg'
import { POSTGRES_ROTATION, SQL, SQLITE_ROTATION, soldSql, ticketsSql } from './sql.js'

/** The limit server's database: what it reads and writes, on SQLite or on PostgreSQL. */

export type Row = Record<string, unknown>

/** The reads, on SQLite (better-sqlite3) or PostgreSQL (pg). */
export interface Store {
  liveToken(digest: string, now: number): Promise<Row | undefined>
  course(column: 'id' | 'slug', key: string, visible: boolean): Promise<Row | undefined>
  courses(visible: boolean, limit: number): Promise<Row[]>
  countCourses(visible: boolean): Promise<number>
  event(column: 'id' | 'slug', key: string): Promise<Row | undefined>
  events(limit: number): Promise<Row[]>
  countEvents(): Promise<number>
  tickets(eventIds: readonly string[]): Promise<Row[]>
  sold(eventIds: readonly string[]): Promise<Row[]>
  /** The client, and the refresh token with its grant and person (left-joined). */
  clientWithRefresh(tokenDigest: string, clientId: string): Promise<Row | undefined>
  /** Rotates, stores the new tokens and records the grant's use; false: already rotated. */
  rotate(write: Rotation): Promise<boolean>
}

/** A refresh's write: the rotated token, the new access and refresh tokens, the grant. */
export interface Rotation {
  readonly now: number
  readonly rotates: string
  readonly grantId: string
  readonly clientId: string
  readonly userId: string
  readonly audience: string
  readonly scope: string
  readonly accessDigest: string
  readonly accessExpires: number
  readonly refreshDigest: string
  readonly refreshExpires: number
}

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
  const write = Object.fromEntries(
    Object.entries(SQLITE_ROTATION).map(([name, text]) => [name, db.prepare(text)]),
  ) as Record<keyof typeof SQLITE_ROTATION, BetterSqlite3.Statement>
  const rotation = db.transaction((w: Rotation): boolean => {
    if (write.rotate.run(w.now, w.rotates).changes === 0) return false
    write.access.run(
      w.accessDigest,
      w.grantId,
      w.clientId,
      w.userId,
      w.scope,
      w.audience,
      w.now,
      w.accessExpires,
    )
    write.refresh.run(w.refreshDigest, w.grantId, w.clientId, w.scope, w.now, w.refreshExpires)
    write.grant.run(w.now, Math.max(w.accessExpires, w.refreshExpires), w.grantId)
    return true
  })
  return {
    liveToken: async (digest, now) => s.liveToken.get(digest, now) as Row | undefined,
    course: async (column, key, visible) =>
      (visible
        ? column === 'id'
          ? s.visibleCourseById
          : s.visibleCourseBySlug
        : column === 'id'
          ? s.courseById
          : s.courseBySlug
      ).get(key) as Row | undefined,
    courses: async (visible, limit) => (visible ? s.visibleCourses : s.courses).all(limit) as Row[],
    countCourses: async (visible) => count(visible ? s.countVisibleCourses : s.countCourses),
    event: async (column, key) =>
      (column === 'id' ? s.eventById : s.eventBySlug).get(key) as Row | undefined,
    events: async (limit) => s.events.all(limit) as Row[],
    countEvents: async () => count(s.countEvents),
    tickets: async (ids) => tickets(ids.length).all(...ids) as Row[],
    sold: async (ids) => sold(ids.length).all(...ids) as Row[],
    clientWithRefresh: async (digest, clientId) =>
      s.clientWithRefresh.get(digest, clientId) as Row | undefined,
    rotate: async (w) => rotation(w),
  }
}

/**
 * PostgreSQL through a pool of 10 (one per connection of the load), every query a named
 * prepared statement; bigint columns read as numbers, as Portico reads them.
 */
export function postgresStore(url: string): Store {
  pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value))
  const pool = new pg.Pool({ connectionString: url, max: 10 })
  const query = async (name: string, text: string, values: unknown[]) =>
    (await pool.query({ name, text, values })).rows as Row[]
  const one = async (name: keyof typeof SQL, values: unknown[]) =>
    (await query(name, SQL[name], values))[0]
  const count = async (name: keyof typeof SQL) => Number((await one(name, []))?.n ?? 0)
  return {
    liveToken: (digest, now) => one('liveToken', [digest, now]),
    course: (column, key, visible) =>
      one(
        visible
          ? column === 'id'
            ? 'visibleCourseById'
            : 'visibleCourseBySlug'
          : column === 'id'
            ? 'courseById'
            : 'courseBySlug',
        [key],
      ),
    courses: (visible, limit) =>
      query(visible ? 'visibleCourses' : 'courses', SQL[visible ? 'visibleCourses' : 'courses'], [
        limit,
      ]),
    countCourses: (visible) => count(visible ? 'countVisibleCourses' : 'countCourses'),
    event: (column, key) => one(column === 'id' ? 'eventById' : 'eventBySlug', [key]),
    events: (limit) => query('events', SQL.events, [limit]),
    countEvents: () => count('countEvents'),
    tickets: (ids) => query(`tickets${ids.length}`, ticketsSql(ids.length), [...ids]),
    sold: (ids) => query(`sold${ids.length}`, soldSql(ids.length), [...ids]),
    clientWithRefresh: (digest, clientId) => one('clientWithRefresh', [digest, clientId]),
    rotate: async (w) =>
      (
        await query('rotation', POSTGRES_ROTATION, [
          w.now,
          w.rotates,
          w.accessDigest,
          w.grantId,
          w.clientId,
          w.userId,
          w.scope,
          w.audience,
          w.accessExpires,
          w.refreshDigest,
          w.refreshExpires,
          Math.max(w.accessExpires, w.refreshExpires),
        ])
      ).length > 0,
  }
}
