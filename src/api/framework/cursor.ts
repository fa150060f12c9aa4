import { ProblemError } from '../problem.js'
import type { Row } from './fields.js'
import type { ResourceDefinition } from './resource.js'
import type { SortKey } from './store.js'

/**
 * Cursors of lists: opaque to clients, a position in a list to the server. Anyone can read
 * and forge one (it is base64url JSON), so nothing in one is trusted: a cursor is only a
 * position in a list the caller may already walk, and every value in it is checked to be of
 * the type its column holds before it reaches SQL.
 */

/** Longer than any cursor this server gives out (a few sort values of bounded length). */
const MAX_CURSOR_LENGTH = 4096
/** Epoch milliseconds any engine stores and JavaScript dates hold (±275,760 years). */
const MAX_INSTANT = 8_640_000_000_000_000
/** A lone UTF-16 surrogate or U+0000: no text column holds it faithfully (PostgreSQL refuses). */
const UNSTORABLE = /\0|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

/** Values as a cursor: base64url of their JSON. */
export function packCursor(values: readonly unknown[]): string {
  return Buffer.from(JSON.stringify(values)).toString('base64url')
}

/**
 * The JSON a cursor holds, or undefined for anything that is not base64url JSON of a bounded
 * length (checked before anything is decoded).
 */
export function unpackCursor(cursor: string): unknown {
  if (cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined
  try {
    return JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
  } catch {
    return undefined
  }
}

/**
 * The cursor of a resource list: the collection and sort it belongs to, and the sort values
 * of the last row served.
 */
export function encodeCursor(
  resource: ResourceDefinition,
  sortText: string,
  sort: readonly SortKey[],
  row: Row,
): string {
  return packCursor([resource.collection, sortText, sort.map((k) => row[k.column])])
}

/**
 * Whether `value` could be the stored value of the sort column `column`, of the type its
 * column holds on both engines. A value of another type (a string for a bigint time, a number
 * beyond the column's range, a fraction for an integer) is what PostgreSQL refuses with an
 * error, where SQLite compares anything with anything: each is refused here, before SQL.
 */
export function isCursorValue(
  resource: ResourceDefinition,
  column: string,
  value: unknown,
): boolean {
  if (column === 'id') return isCursorText(value, 200) && value.startsWith(`${resource.idPrefix}_`)
  if (column === 'created_at' || column === 'updated_at') return isCursorInstant(value, 0)
  const field = resource.fields[column]
  if (!field) return false
  if (value === null) return field.options.nullable === true
  const schema = field.schema()
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type
  if (schema.format === 'date-time') return isCursorInstant(value, -MAX_INSTANT)
  if (type === 'boolean') return value === 0 || value === 1
  // Integer fields are 32-bit columns (PostgreSQL `integer`): beyond that, an error there.
  // Money sorts by its amount, an integer column of minor units.
  const { properties } = schema
  const money =
    type === 'object' &&
    typeof properties === 'object' &&
    properties !== null &&
    'amount' in properties
  if (type === 'integer' || money) return isWhole(value, -2_147_483_648, 2_147_483_647)
  if (type === 'string' && Array.isArray(schema.enum)) return schema.enum.includes(value)
  // Text, and structures kept as JSON text. Not bounded by what the API lets a client write:
  // rows written another way (the CLI, the demo) may hold longer text; the cursor's own
  // length bounds it.
  return isCursorText(value, MAX_CURSOR_LENGTH)
}

/** Text a text column holds faithfully on both engines, of at most `max` characters. */
export function isCursorText(value: unknown, max: number): value is string {
  return typeof value === 'string' && value.length <= max && !UNSTORABLE.test(value)
}

/** An epoch-milliseconds time from `min` that a bigint column holds. */
export function isCursorInstant(value: unknown, min: number): value is number {
  return isWhole(value, min, MAX_INSTANT)
}

function isWhole(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= min && value <= max
}

/** The sort values of a list cursor given out with the same sort, or a 400 `invalid_cursor`. */
export function decodeListCursor(
  resource: ResourceDefinition,
  cursor: string,
  sortText: string,
  sort: readonly SortKey[],
): unknown[] {
  const decoded = unpackCursor(cursor)
  if (Array.isArray(decoded) && decoded.length === 3) {
    const [collection, forSort, values] = decoded as [unknown, unknown, unknown]
    if (
      collection === resource.collection &&
      forSort === sortText &&
      Array.isArray(values) &&
      values.length === sort.length &&
      sort.every((key, i) => isCursorValue(resource, key.column, values[i]))
    )
      return values
  }
  const message = 'cursor is not one this list gave out with the same sort; start again without it'
  throw new ProblemError(400, {
    code: 'invalid_request',
    title: 'Bad Request',
    detail: message,
    errors: [{ field: 'cursor', code: 'invalid_cursor', message }],
  })
}
