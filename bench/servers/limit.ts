import { createHash, randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { createRequire } from 'node:module'
import v8 from 'node:v8'
import type BetterSqlite3 from 'better-sqlite3'
import pg from 'pg'

/**
 * The limit server: plain node:http doing, for each API read the benchmark measures, the
 * work Portico cannot avoid and nothing else, on Portico's own database. Per request: the
 * Authorization header parsed, the token's SHA-256, one prepared lookup of token, grant and
 * person (expiry, revocation, disabled person), the scope and the role's allowance, the same
 * rows read with prepared statements, the same projection, one JSON.stringify, the ETag
 * where Portico sends one, and the same response headers. Nothing is kept between requests
 * but the prepared statements. Written for `npm run bench` only; the bench compares its
 * answers with Portico's on a sample before measuring, so it cannot do less.
 *
 * It also answers the refresh-token grant as Portico must: the form read, the client and the
 * presented refresh token (with its grant and person) in one read, the same checks, two new
 * 256-bit tokens, and the rotation with the new tokens and the grant's use written as one
 * atomic step: one statement on PostgreSQL (as Portico writes it), one transaction on SQLite.
 *
 * Usage: node limit.js <port> <database url> <issuer>; prints {"listening": url}.
 */

type Row = Record<string, unknown>

// The V8 setting `portico serve` runs with (src/platform/v8-heap.ts), so that both servers
// run on the same runtime; this server's old generation stayed flat with and without it.
v8.setFlagsFromString('--no-allocation-site-pretenuring')

/** The reads, on SQLite (better-sqlite3) or PostgreSQL (pg). */
interface Store {
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
interface Rotation {
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

const LIVE_TOKEN = `select u.id, u.email, u.name, u.role, u.locale, u.timezone, u.avatar_url, u.bio,
  u.notification_preferences, u.created_at, u.updated_at, t.client_id, t.scope, t.audience
  from access_tokens t join grants g on g.id = t.grant_id join users u on u.id = t.user_id
  where t.token_digest = $1 and t.expires_at > $2 and g.revoked_at is null
  and u.status = 'active' and u.disabled_at is null`
/** What an anonymous caller may read of a course: by key, and in the catalogue. */
const COURSE_GET_VISIBLE = `status in ('published') and visibility in ('public', 'unlisted')`
const COURSE_LIST_VISIBLE = `status in ('published') and visibility in ('public')`

const SQL = {
  liveToken: LIVE_TOKEN,
  courseById: 'select * from courses where id = $1',
  courseBySlug: 'select * from courses where slug = $1',
  visibleCourseById: `select * from courses where id = $1 and ${COURSE_GET_VISIBLE}`,
  visibleCourseBySlug: `select * from courses where slug = $1 and ${COURSE_GET_VISIBLE}`,
  courses: 'select * from courses order by created_at desc, id desc limit $1',
  visibleCourses: `select * from courses where ${COURSE_LIST_VISIBLE} order by created_at desc, id desc limit $1`,
  countCourses: 'select count(*) as n from courses',
  countVisibleCourses: `select count(*) as n from courses where ${COURSE_LIST_VISIBLE}`,
  eventById: 'select * from events where id = $1',
  eventBySlug: 'select * from events where slug = $1',
  events: 'select * from events order by starts_at desc, id desc limit $1',
  countEvents: 'select count(*) as n from events',
  clientWithRefresh: `select c.client_id, c.token_endpoint_auth_method, c.grant_types,
    r.token_digest as r_token_digest, r.client_id as r_client_id, r.scope as r_scope,
    r.expires_at as r_expires_at, r.rotated_at as r_rotated_at,
    g.id as g_id, g.user_id as g_user_id, g.resource as g_resource, g.created_at as g_created_at,
    g.expires_at as g_expires_at, g.revoked_at as g_revoked_at,
    u.status as u_status, u.disabled_at as u_disabled_at
    from clients c
    left join refresh_tokens r on r.token_digest = $1
    left join grants g on g.id = r.grant_id
    left join users u on u.id = g.user_id
    where c.client_id = $2`,
} as const

/** SQLite's rotation: one transaction of these four (Portico's storeInTransaction). */
const SQLITE_ROTATION = {
  rotate: 'update refresh_tokens set rotated_at = ? where token_digest = ? and rotated_at is null',
  access: `insert into access_tokens
    (token_digest, grant_id, client_id, user_id, scope, audience, created_at, expires_at)
    values (?, ?, ?, ?, ?, ?, ?, ?)`,
  refresh: `insert into refresh_tokens
    (token_digest, grant_id, client_id, scope, created_at, expires_at, rotated_at)
    values (?, ?, ?, ?, ?, ?, null)`,
  grant: 'update grants set last_used_at = ?, expires_at = max(expires_at, ?) where id = ?',
} as const

/** PostgreSQL's rotation: one statement, as Portico's storeInOneStatement writes it. */
const POSTGRES_ROTATION = `with go as (
    update refresh_tokens set rotated_at = $1::bigint
    where token_digest = $2 and rotated_at is null returning 1),
  new_access as (
    insert into access_tokens
      (token_digest, grant_id, client_id, user_id, scope, audience, created_at, expires_at)
    select $3::text, $4::text, $5::text, $6::text, $7::text, $8::text, $1::bigint, $9::bigint
    from go),
  new_refresh as (
    insert into refresh_tokens (token_digest, grant_id, client_id, scope, created_at, expires_at)
    select $10::text, $4::text, $5::text, $7::text, $1::bigint, $11::bigint from go)
  update grants set last_used_at = $1::bigint,
    expires_at = greatest(expires_at, $12::bigint)
  where id = $4 and exists (select 1 from go)
  returning id`

const placeholders = (count: number) =>
  Array.from({ length: count }, (_, i) => `$${i + 1}`).join(', ')
const ticketsSql = (count: number) =>
  `select * from event_tickets where event_id in (${placeholders(count)}) order by position, id`
const soldSql = (count: number) =>
  `select event_id, ticket_id, count(*) as n from event_attendees where event_id in (${placeholders(count)}) and status <> 'canceled' group by event_id, ticket_id`

/** better-sqlite3 as src/storage/sqlite-driver.ts picks it: 13 on Node 22 and later, 12 before. */
function sqliteStore(file: string): Store {
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
function postgresStore(url: string): Store {
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

// —— who is calling ——

/** RFC 6750 §2.1, as Portico reads it. */
const BEARER = /^bearer +([A-Za-z0-9\-._~+/]+=*)$/i

/** The read scopes each role may hold (src/oauth/roles.ts), of those served here. */
const ROLE_READS: Record<string, ReadonlySet<string>> = {
  owner: new Set(['account:read', 'courses:read', 'events:read']),
  admin: new Set(['account:read', 'courses:read', 'events:read']),
  editor: new Set(['account:read', 'courses:read', 'events:read']),
  lecturer: new Set(['account:read', 'courses:read', 'events:read']),
  teaching_assistant: new Set(['account:read', 'courses:read']),
  student: new Set(['account:read']),
}
const TEAM_ROLES = new Set(['owner', 'admin', 'editor', 'lecturer', 'teaching_assistant'])

class Refusal {
  readonly status: number
  readonly code: string
  readonly detail: string
  constructor(status: number, code: string, detail: string) {
    this.status = status
    this.code = code
    this.detail = detail
  }
}

/** The caller's person, or undefined when anonymous; a bad token is refused. */
async function callerOf(
  store: Store,
  header: string | undefined,
  issuer: string,
): Promise<Row | undefined> {
  if (header === undefined) return undefined
  const token = BEARER.exec(header)?.[1]
  if (token === undefined) throw new Refusal(401, 'invalid_token', 'malformed Authorization')
  const digest = createHash('sha256').update(token).digest('base64url')
  const person = await store.liveToken(digest, Date.now())
  if (!person || person.audience !== issuer)
    throw new Refusal(401, 'invalid_token', 'the access token is invalid, expired or revoked')
  return person
}

/** Whether the caller's token holds `scope` and their role allows it. */
function holds(person: Row | undefined, scope: string): boolean {
  if (!person) return false
  return (
    (person.scope as string).split(' ').includes(scope) &&
    ROLE_READS[person.role as string]?.has(scope) === true
  )
}

// —— the projections ——

function timestamp(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, -5)}Z`
}
const time = (value: unknown) => (typeof value === 'number' ? timestamp(value) : null)
const json = (value: unknown, otherwise: unknown) =>
  typeof value === 'string' ? JSON.parse(value) : otherwise
const bool = (value: unknown) => (value === null || value === undefined ? null : Boolean(value))

type Plan = { available?: boolean }

function courseView(row: Row, full: boolean): Row {
  const plans = JSON.parse(row.pricing_plans as string) as Plan[]
  const view: Row = {
    id: row.id,
    object: 'course',
    title: row.title,
    slug: row.slug,
    subtitle: row.subtitle ?? null,
    description: row.description ?? null,
    cover_image_url: row.cover_image_url ?? null,
    promo_video_url: row.promo_video_url ?? null,
  }
  if (full) {
    view.status = row.status
    view.visibility = row.visibility
  }
  view.featured = bool(row.featured)
  view.category_id = row.category_id ?? null
  view.tags = json(row.tags, [])
  view.level = row.level
  view.language = row.language ?? null
  view.pricing_plans = full ? plans : plans.filter((p) => p.available !== false)
  view.enrollment = json(row.enrollment, null)
  view.certificate_enabled = bool(row.certificate_enabled)
  view.comments_enabled = bool(row.comments_enabled)
  view.reviews_enabled = bool(row.reviews_enabled)
  view.seo = json(row.seo, null)
  view.published_at = time(row.published_at)
  view.lecturer_ids = json(row.lecturer_ids, [])
  view.created_at = timestamp(row.created_at as number)
  view.updated_at = timestamp(row.updated_at as number)
  return view
}

/** Seats left: the tighter of the ticket's quantity and the event's capacity; null: no limit. */
function remaining(
  quantity: number | null,
  sold: number,
  capacity: number | null,
  registered: number,
): number | null {
  const a = quantity === null ? null : quantity - sold
  const b = capacity === null ? null : capacity - registered
  if (a === null && b === null) return null
  return Math.max(0, Math.min(a ?? Number.POSITIVE_INFINITY, b ?? Number.POSITIVE_INFINITY))
}

/** The full views of events, their tickets and sold counts read for all of them at once. */
async function eventViews(store: Store, rows: readonly Row[]): Promise<Row[]> {
  if (rows.length === 0) return []
  const ids = rows.map((r) => r.id as string)
  const [tickets, sold] = await Promise.all([store.tickets(ids), store.sold(ids)])
  const byTicket = new Map<string, number>()
  const byEvent = new Map<string, number>()
  for (const s of sold) {
    const n = Number(s.n)
    if (typeof s.ticket_id === 'string') byTicket.set(s.ticket_id, n)
    byEvent.set(s.event_id as string, (byEvent.get(s.event_id as string) ?? 0) + n)
  }
  return rows.map((row) => {
    const registered = byEvent.get(row.id as string) ?? 0
    const capacity = (row.capacity as number | null) ?? null
    const own: Row[] = []
    for (const t of tickets) {
      if (t.event_id !== row.id) continue
      const count = byTicket.get(t.id as string) ?? 0
      const quantity = (t.quantity as number | null) ?? null
      own.push({
        id: t.id,
        name: t.name,
        description: t.description ?? null,
        price: { amount: Number(t.price_amount), currency: t.currency },
        quantity,
        position: Number(t.position),
        sales_start_at: t.sales_start_at === null ? null : timestamp(Number(t.sales_start_at)),
        sales_end_at: t.sales_end_at === null ? null : timestamp(Number(t.sales_end_at)),
        sold_count: count,
        remaining: remaining(quantity, count, capacity, registered),
      })
    }
    return {
      id: row.id,
      object: 'event',
      title: row.title,
      slug: row.slug,
      description: row.description ?? null,
      cover_image_url: row.cover_image_url ?? null,
      type: row.type,
      format: row.format,
      status: row.status,
      visibility: row.visibility,
      starts_at: time(row.starts_at),
      ends_at: time(row.ends_at),
      timezone: row.timezone,
      location: json(row.location, null),
      capacity,
      tickets: own,
      lecturer_ids: json(row.lecturer_ids, []),
      course_id: row.course_id ?? null,
      registration_open: bool(row.registration_open),
      recording: json(row.recording, null),
      published_at: time(row.published_at),
      canceled_at: time(row.canceled_at),
      cancellation_reason: row.cancellation_reason ?? null,
      attendees_count: registered,
      created_at: timestamp(row.created_at as number),
      updated_at: timestamp(row.updated_at as number),
    }
  })
}

const DEFAULT_NOTIFICATIONS = {
  new_order: true,
  new_comment: true,
  new_student: false,
  weekly_summary: true,
  product_news: false,
}

function accountView(person: Row): Row {
  return {
    id: person.id,
    object: 'account',
    email: person.email,
    email_verified: true,
    name: person.name,
    avatar_url: person.avatar_url ?? null,
    locale: person.locale ?? null,
    timezone: person.timezone ?? null,
    bio: person.bio ?? null,
    kind: TEAM_ROLES.has(person.role as string) ? 'staff' : 'learner',
    role: person.role,
    notification_preferences: {
      ...DEFAULT_NOTIFICATIONS,
      ...json(person.notification_preferences, undefined),
    },
    created_at: timestamp(person.created_at as number),
    updated_at: timestamp(person.updated_at as number),
  }
}

// —— answers ——

interface Answer {
  readonly status: number
  readonly json: string
  readonly etag?: string
  readonly visibility?: 'full' | 'public'
}

const one = (view: Row, visibility?: 'full' | 'public'): Answer => {
  const text = JSON.stringify(view)
  return {
    status: 200,
    json: text,
    etag: `"${createHash('sha256').update(text).digest('base64url').slice(0, 27)}"`,
    ...(visibility && { visibility }),
  }
}

const cursorOf = (collection: string, sort: string, values: unknown[]) =>
  Buffer.from(JSON.stringify([collection, sort, values])).toString('base64url')

function listAnswer(
  data: Row[],
  rows: Row[],
  limit: number,
  total: number,
  next: (last: Row) => string,
  visibility: 'full' | 'public',
): Answer {
  const hasMore = rows.length > limit
  const last = rows[Math.min(rows.length, limit) - 1]
  return {
    status: 200,
    json: JSON.stringify({
      object: 'list',
      data,
      has_more: hasMore,
      next_cursor: hasMore && last ? next(last) : null,
      total_count: total,
    }),
    visibility,
  }
}

const notFound = (what: string) => new Refusal(404, 'not_found', `no such ${what}`)

/** The page size of a list (`?limit=`, 1 to 100, 20 by default). */
function limitOf(query: string): number {
  const raw = new URLSearchParams(query).get('limit')
  if (raw === null) return 20
  const limit = Number(raw)
  if (!Number.isInteger(limit) || limit < 1 || limit > 100)
    throw new Refusal(400, 'validation_failed', 'limit must be from 1 to 100')
  return limit
}

async function answer(store: Store, request: IncomingMessage, issuer: string): Promise<Answer> {
  const url = request.url ?? '/'
  if (request.method !== 'GET') throw new Refusal(405, 'method_not_allowed', 'GET only')
  if (url.includes('%00')) throw new Refusal(400, 'invalid_request', 'U+0000 in the URL')
  const mark = url.indexOf('?')
  const path = mark < 0 ? url : url.slice(0, mark)
  const query = mark < 0 ? '' : url.slice(mark + 1)
  const person = await callerOf(store, request.headers.authorization, issuer)

  if (path === '/api/v1/account') {
    if (!holds(person, 'account:read') || !person)
      throw new Refusal(person ? 403 : 401, 'insufficient_scope', 'account:read')
    return one(accountView(person))
  }
  if (path === '/api/v1/courses') {
    const full = holds(person, 'courses:read')
    const limit = limitOf(query)
    const [rows, total] = await Promise.all([
      store.courses(!full, limit + 1),
      store.countCourses(!full),
    ])
    const data = rows.slice(0, limit).map((row) => courseView(row, full))
    return listAnswer(
      data,
      rows,
      limit,
      total,
      (last) => cursorOf('courses', '-created_at', [last.created_at, last.id]),
      full ? 'full' : 'public',
    )
  }
  if (path.startsWith('/api/v1/courses/') && path.indexOf('/', 16) < 0) {
    const key = decodeURIComponent(path.slice(16))
    const full = holds(person, 'courses:read')
    const row = await store.course(key.startsWith('crs_') ? 'id' : 'slug', key, !full)
    if (!row) throw notFound('course')
    return one(courseView(row, full), full ? 'full' : 'public')
  }
  if (
    path === '/api/v1/events' ||
    (path.startsWith('/api/v1/events/') && path.indexOf('/', 15) < 0)
  ) {
    // Only what the benchmark reads: events with events:read (the public projection is not served).
    if (!holds(person, 'events:read'))
      throw new Refusal(person ? 403 : 401, 'insufficient_scope', 'events:read')
    if (path === '/api/v1/events') {
      const limit = limitOf(query)
      const [rows, total] = await Promise.all([store.events(limit + 1), store.countEvents()])
      const data = await eventViews(store, rows.slice(0, limit))
      return listAnswer(
        data,
        rows,
        limit,
        total,
        (last) => cursorOf('events', '-starts_at', [last.starts_at, last.id]),
        'full',
      )
    }
    const key = decodeURIComponent(path.slice(15))
    const row = await store.event(key.startsWith('evt_') ? 'id' : 'slug', key)
    if (!row) throw notFound('event')
    const [view] = await eventViews(store, [row])
    return one(view as Row, 'full')
  }
  throw new Refusal(404, 'not_found', 'not served by the limit server')
}

// —— the refresh-token grant ——

const TOKEN_PATH = '/api/oauth/token'
/** Portico's default lifetimes (src/config.ts), which the bench leaves as they are. */
const ACCESS_TOKEN_MS = 3600 * 1000
const REFRESH_TOKEN_MS = 30 * 86400 * 1000
const GRANT_MAXIMUM_MS = 90 * 86400 * 1000
/** The token endpoint's body limit (Portico's BODY_LIMIT). */
const FORM_LIMIT = 64 * 1024

function readForm(request: IncomingMessage): Promise<URLSearchParams> {
  return new Promise((resolve, reject) => {
    if (!request.headers['content-type']?.startsWith('application/x-www-form-urlencoded')) {
      request.resume()
      reject(new Refusal(400, 'invalid_request', 'the body must be a form'))
      return
    }
    const chunks: Buffer[] = []
    let size = 0
    request.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size <= FORM_LIMIT) chunks.push(chunk)
    })
    request.on('end', () => {
      if (size > FORM_LIMIT) reject(new Refusal(413, 'invalid_request', 'too large'))
      else resolve(new URLSearchParams(Buffer.concat(chunks).toString('utf8')))
    })
    request.on('error', reject)
  })
}

const REFRESH_REFUSED = 'the refresh token is invalid, expired, revoked or already used'

/** A 256-bit token as Portico cuts it: prefix, underscore, 43 base64url characters. */
const newToken = (prefix: string) => `${prefix}_${randomBase64url(32)}`

const sha256 = (text: string) => createHash('sha256').update(text).digest('base64url')

async function refresh(store: Store, request: IncomingMessage): Promise<string> {
  const form = await readForm(request)
  if (form.get('grant_type') !== 'refresh_token')
    throw new Refusal(400, 'unsupported_grant_type', 'refresh_token only')
  const clientId = form.get('client_id')
  const presented = form.get('refresh_token')
  if (!clientId) throw new Refusal(401, 'invalid_client', 'client_id is missing')
  if (!presented) throw new Refusal(400, 'invalid_request', 'refresh_token is missing')
  const rotates = sha256(presented)
  const now = Date.now()
  const row = await store.clientWithRefresh(rotates, clientId)
  // Only public clients are served here (the bench's is one).
  if (row?.token_endpoint_auth_method !== 'none')
    throw new Refusal(401, 'invalid_client', 'client authentication failed')
  if (!String(row.grant_types).includes('refresh_token'))
    throw new Refusal(400, 'unauthorized_client', 'the client may not refresh')
  if (
    row.r_token_digest === null ||
    row.r_client_id !== clientId ||
    row.g_revoked_at !== null ||
    row.r_rotated_at !== null ||
    Number(row.r_expires_at) <= now ||
    Number(row.g_expires_at) <= now ||
    Number(row.g_created_at) + GRANT_MAXIMUM_MS <= now ||
    row.u_status !== 'active' ||
    row.u_disabled_at !== null
  )
    throw new Refusal(400, 'invalid_grant', REFRESH_REFUSED)
  const scope = row.r_scope as string
  const accessToken = newToken('pat')
  const refreshToken = newToken('prt')
  const accessExpires = now + ACCESS_TOKEN_MS
  const stored = await store.rotate({
    now,
    rotates,
    grantId: row.g_id as string,
    clientId,
    userId: row.g_user_id as string,
    audience: row.g_resource as string,
    scope,
    accessDigest: sha256(accessToken),
    accessExpires,
    refreshDigest: sha256(refreshToken),
    refreshExpires: Math.min(now + REFRESH_TOKEN_MS, Number(row.g_created_at) + GRANT_MAXIMUM_MS),
  })
  if (!stored) throw new Refusal(400, 'invalid_grant', REFRESH_REFUSED)
  return JSON.stringify({
    access_token: accessToken,
    token_type: 'Bearer',
    expires_in: ACCESS_TOKEN_MS / 1000,
    scope,
    refresh_token: refreshToken,
  })
}

function sendToken(response: ServerResponse, status: number, body: string): void {
  response.writeHead(status, {
    'x-request-id': requestId(),
    ...COMMON,
    'cache-control': 'no-store',
    pragma: 'no-cache',
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
  })
  response.end(body)
}

/** A refusal as the token endpoint words it (RFC 6749 §5.2): `error`, `error_description`. */
function refuseToken(response: ServerResponse, error: unknown): void {
  const refusal = refusalOf(error, 'server_error')
  sendToken(
    response,
    refusal.status,
    JSON.stringify({ error: refusal.code, error_description: refusal.detail }),
  )
}

// —— the server ——

const [portArg, databaseUrl, issuer] = process.argv.slice(2)
const port = Number(portArg)
if (!Number.isInteger(port) || port <= 0 || !databaseUrl || !issuer)
  throw new Error('usage: limit.js <port> <database url> <issuer>')
const store = databaseUrl.startsWith('postgres')
  ? postgresStore(databaseUrl)
  : sqliteStore(databaseUrl.replace(/^sqlite:/, ''))

/** `n` random bytes as base64url, drawn 4 KiB at a time and each used once, as Portico does. */
let pool = randomBytes(4096)
let used = 0
function randomBase64url(n: number): string {
  if (used + n > pool.length) {
    pool = randomBytes(4096)
    used = 0
  }
  used += n
  return pool.toString('base64url', used - n, used)
}
const requestId = () => `req_${randomBase64url(16)}`

const COMMON = {
  'x-content-type-options': 'nosniff',
  vary: 'Origin',
  'access-control-allow-origin': '*',
  'access-control-expose-headers':
    'WWW-Authenticate, Location, ETag, Retry-After, X-Request-Id, Mcp-Session-Id, Mcp-Protocol-Version',
}

function send(request: IncomingMessage, response: ServerResponse, result: Answer): void {
  const headers: Record<string, string> = {
    'x-request-id': requestId(),
    ...COMMON,
    'cache-control': 'no-store',
  }
  if (result.visibility) headers['data-visibility'] = result.visibility
  if (result.etag) {
    headers.etag = result.etag
    const match = request.headers['if-none-match']
    if (match?.split(',').some((tag) => tag.trim() === result.etag)) {
      response.writeHead(304, headers)
      response.end()
      return
    }
  }
  headers['content-type'] = 'application/json; charset=utf-8'
  headers['content-length'] = String(Buffer.byteLength(result.json))
  response.writeHead(result.status, headers)
  response.end(result.json)
}

/** What was refused, or a 500 for anything thrown that was no refusal (logged). */
function refusalOf(error: unknown, code: string): Refusal {
  if (error instanceof Refusal) return error
  console.error(error)
  return new Refusal(500, code, 'the limit server failed')
}

function refuse(response: ServerResponse, error: unknown): void {
  const refusal = refusalOf(error, 'internal')
  const body = JSON.stringify({
    type: 'about:blank',
    status: refusal.status,
    code: refusal.code,
    detail: refusal.detail,
  })
  response.writeHead(refusal.status, {
    'x-request-id': requestId(),
    ...COMMON,
    'content-type': 'application/problem+json; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
  })
  response.end(body)
}

const server = createServer((request, response) => {
  if (request.method === 'POST' && request.url === TOKEN_PATH) {
    refresh(store, request).then(
      (body) => sendToken(response, 200, body),
      (error: unknown) => refuseToken(response, error),
    )
    return
  }
  request.resume()
  answer(store, request, issuer).then(
    (result) => send(request, response, result),
    (error: unknown) => refuse(response, error),
  )
})
// Portico's keep-alive (its Keep-Alive header says timeout=72).
server.keepAliveTimeout = 72_000
server.listen(port, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ listening: `http://127.0.0.1:${port}` })}\n`)
})
const stop = () => server.close(() => process.exit(0))
process.once('SIGTERM', stop)
process.once('SIGINT', stop)
