import { createHash } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import { bearerDigest, callerOf, checked, holds } from './caller.js'
import { Refusal } from './refusal.js'
import { CALLER_WIDTH } from './sql.js'
import type { Cells, Row, Store } from './store.js'
import { accountView, C, eventViews, fullCourse, publicCourse } from './views.js'

/** The routes: the API reads the limit server serves (GET only), and their answers. */

export interface Answer {
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

function listAnswer<R>(
  data: Row[],
  rows: R[],
  limit: number,
  total: number,
  next: (last: R) => string,
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

export async function answer(
  store: Store,
  request: IncomingMessage,
  issuer: string,
): Promise<Answer> {
  const url = request.url ?? '/'
  if (request.method !== 'GET') throw new Refusal(405, 'method_not_allowed', 'GET only')
  if (url.includes('%00')) throw new Refusal(400, 'invalid_request', 'U+0000 in the URL')
  const mark = url.indexOf('?')
  const path = mark < 0 ? url : url.slice(0, mark)
  const query = mark < 0 ? '' : url.slice(mark + 1)
  if (path.startsWith('/api/v1/courses/') && path.indexOf('/', 16) < 0)
    return oneCourse(
      store,
      decodeURIComponent(path.slice(16)),
      request.headers.authorization,
      issuer,
    )
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
    const data = rows.slice(0, limit).map((row) => (full ? fullCourse : publicCourse)(row, 0))
    return listAnswer(
      data,
      rows,
      limit,
      total,
      (last) => cursorOf('courses', '-created_at', [last[C.createdAt], last[C.id]]),
      full ? 'full' : 'public',
    )
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

/** Whether an anonymous caller may read this course by its key (Portico's WHERE for it). */
const visible = (r: Cells, o: number) =>
  r[o + C.status] === 'published' &&
  (r[o + C.visibility] === 'public' || r[o + C.visibility] === 'unlisted')

/** One course: with a token, the bearer check and the course in one statement. */
async function oneCourse(
  store: Store,
  key: string,
  header: string | undefined,
  issuer: string,
): Promise<Answer> {
  const column = key.startsWith('crs_') ? 'id' : 'slug'
  if (header === undefined) {
    const row = await store.course(column, key, true)
    if (!row) throw notFound('course')
    return one(publicCourse(row, 0), 'public')
  }
  const row = checked(
    await store.callerAndCourse(column, key, bearerDigest(header), Date.now()),
    issuer,
  )
  const full = holds(row, 'courses:read')
  if (row[CALLER_WIDTH] === null || (!full && !visible(row, CALLER_WIDTH))) throw notFound('course')
  return one((full ? fullCourse : publicCourse)(row, CALLER_WIDTH), full ? 'full' : 'public')
}
