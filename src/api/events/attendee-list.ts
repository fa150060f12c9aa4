import type { AppDeps } from '../../app-deps.js'
import { isCursorInstant, isCursorText, packCursor, unpackCursor } from '../framework/cursor.js'
import { type QueryMember, queryMember, queryText } from '../framework/endpoint-query.js'
import { enumeration, integer } from '../framework/fields.js'
import { DEFAULT_LIMIT, MAX_LIMIT, projected } from '../framework/list-params.js'
import { attendeeFields, attendeeView, SOURCES, STATUSES } from './attendee-views.js'

/** A position in the list: the registration time and id of the last attendee served. */
type Position = [number, string]

/**
 * Reads a cursor; anyone can forge one, so only what the column types hold is taken
 * (PostgreSQL errors on a fraction or a number beyond bigint, and on U+0000 in text, where
 * SQLite compares anything).
 */
function readPosition(raw: string): Position | undefined {
  const decoded = unpackCursor(raw)
  if (
    Array.isArray(decoded) &&
    decoded.length === 2 &&
    isCursorInstant(decoded[0], 0) &&
    isCursorText(decoded[1], 104) &&
    decoded[1].startsWith('att_')
  )
    return [decoded[0], decoded[1]]
  return undefined
}

/** The filters and paging of the attendee list, refused as lists refuse theirs (400). */
export const attendeeListQuery: Readonly<Record<string, QueryMember>> = {
  status: queryMember(enumeration(STATUSES), 'format', `status is one of ${STATUSES}`),
  ticket_id: queryText(),
  // Documented as its three values; any other matches no attendee.
  source: { ...queryText(), schema: enumeration(SOURCES).schema },
  limit: queryMember(
    {
      ...integer({ min: 1, max: MAX_LIMIT }),
      parseQuery: (raw) => {
        const n = /^\d{1,3}$/.test(raw) ? Number(raw) : Number.NaN
        return n >= 1 && n <= MAX_LIMIT ? n : undefined
      },
    },
    'range',
    `limit must be 1 to ${MAX_LIMIT}`,
  ),
  cursor: queryMember(
    { ...queryText(), parseQuery: readPosition },
    'invalid_cursor',
    'cursor is not one of ours',
  ),
  fields: attendeeFields,
}

/** A page of an event's attendees in order of registration, with the filters' total. */
export async function listAttendees(
  deps: AppDeps,
  eventId: string,
  filters: Readonly<Record<string, unknown>>,
) {
  const db = deps.database.db
  let query = db.selectFrom('event_attendees').selectAll().where('event_id', '=', eventId)
  let count = db
    .selectFrom('event_attendees')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('event_id', '=', eventId)
  for (const name of ['status', 'ticket_id', 'source'] as const) {
    const value = filters[name]
    if (typeof value !== 'string') continue
    query = query.where(name, '=', value)
    count = count.where(name, '=', value)
  }
  const limit = (filters.limit as number | undefined) ?? DEFAULT_LIMIT
  const after = filters.cursor as Position | undefined
  if (after) {
    const [at, id] = after
    query = query.where((eb) =>
      eb.or([
        eb('registered_at', '>', at),
        eb.and([eb('registered_at', '=', at), eb('id', '>', id)]),
      ]),
    )
  }
  const [rows, total] = await Promise.all([
    query
      .orderBy('registered_at')
      .orderBy('id')
      .limit(limit + 1)
      .execute(),
    count.executeTakeFirst(),
  ])
  const page = rows.slice(0, limit)
  const last = page[page.length - 1]
  const hasMore = rows.length > limit
  return {
    object: 'list',
    data: page.map((row) =>
      projected(attendeeView(row), filters.fields as ReadonlySet<string> | undefined),
    ),
    has_more: hasMore,
    next_cursor: hasMore && last ? packCursor([Number(last.registered_at), last.id]) : null,
    total_count: Number(total?.n ?? 0),
  }
}
