import { createHash } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import { callerOf, holds } from './caller.js'
import { Refusal } from './refusal.js'
import type { Row, Store } from './store.js'
import { accountView, courseView, eventViews } from './views.js'

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
