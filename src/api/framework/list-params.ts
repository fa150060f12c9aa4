import { ProblemError } from '../../http/problem.js'
import type { FieldError } from '../conventions.js'
import type { Row } from './fields.js'
import type { ResourceDefinition } from './resource.js'
import type { Filter, SortKey } from './store.js'

export const DEFAULT_LIMIT = 20
export const MAX_LIMIT = 100

const RANGE_OPS = { gt: '>', gte: '>=', lt: '<', lte: '<=' } as const

/** What a list request asks for, checked against the declaration. */
export interface ListParams {
  readonly limit: number
  readonly sort: readonly SortKey[]
  readonly sortText: string
  readonly filters: readonly Filter[]
  readonly q?: string
  readonly after?: readonly unknown[]
}

/** Fields usable in `sort`: the declared ones plus the timestamps every record has. */
export function sortableOf(resource: ResourceDefinition): string[] {
  return [
    ...Object.entries(resource.fields)
      .filter(([, f]) => f.options.sortable)
      .map(([name]) => name),
    'created_at',
    'updated_at',
  ]
}

/** Query parameters usable as filters, as `name` or `name[op]`. */
export function filterableOf(resource: ResourceDefinition): string[] {
  const own = Object.entries(resource.fields)
    .filter(([, f]) => f.options.filter)
    .map(([name]) => name)
  return [...new Set([...own, ...Object.keys(resource.filters ?? {})])]
}

/** The field that parses a filter's value, and the declared condition if it has one. */
export function filterOf(resource: ResourceDefinition, name: string) {
  const field = resource.fields[name]
  if (field?.options.filter) return { field, declared: undefined }
  const declared = resource.filters?.[name]
  return declared && { field: declared.field, declared }
}

export function searchableOf(resource: ResourceDefinition): string[] {
  return Object.entries(resource.fields)
    .filter(([, f]) => f.options.search)
    .map(([name]) => name)
}

function badRequest(errors: FieldError[]): ProblemError {
  return new ProblemError(400, {
    code: 'invalid_request',
    title: 'Bad Request',
    detail: errors.length === 1 ? (errors[0]?.message ?? 'invalid query') : 'invalid query',
    errors,
  })
}

/**
 * Reads `limit`, `cursor`, `sort`, `q` and the declared filters; anything else is a 400
 * naming the parameter, never silently ignored.
 */
export function parseListParams(
  resource: ResourceDefinition,
  query: Record<string, unknown>,
  now = Date.now(),
): ListParams {
  const errors: FieldError[] = []
  const filters: Filter[] = []
  const sortable = sortableOf(resource)
  let limit = DEFAULT_LIMIT
  let sortText = resource.defaultSort ?? '-created_at'
  let cursor: string | undefined
  let q: string | undefined
  for (const [name, raw] of Object.entries(query)) {
    if (typeof raw !== 'string') {
      errors.push({ field: name, code: 'repeated', message: `${name} may be given only once` })
      continue
    }
    if (name === 'limit') {
      const n = /^\d{1,3}$/.test(raw) ? Number(raw) : Number.NaN
      if (!(n >= 1 && n <= MAX_LIMIT))
        errors.push({ field: name, code: 'range', message: `limit must be 1 to ${MAX_LIMIT}` })
      else limit = n
    } else if (name === 'cursor') cursor = raw
    else if (name === 'sort') sortText = raw
    else if (name === 'q' && searchableOf(resource).length > 0) q = raw
    else {
      const match = /^([a-z_]+)(?:\[(gt|gte|lt|lte)\])?$/.exec(name)
      const filter = match?.[1] ? filterOf(resource, match[1]) : undefined
      if (!match?.[1] || !filter) {
        errors.push({
          field: name,
          code: 'unknown_parameter',
          message: `${name} is not a filter of ${resource.collection}; filters: ${filterableOf(resource).join(', ') || 'none'}`,
        })
        continue
      }
      const { field, declared } = filter
      const op = match[2] as keyof typeof RANGE_OPS | undefined
      if (op && field.filterKind !== 'range') {
        errors.push({
          field: name,
          code: 'unknown_parameter',
          message: `${match[1]} has no ranges`,
        })
        continue
      }
      const value = field.parseQuery(raw)
      if (value === undefined) {
        errors.push({ field: name, code: 'format', message: `${name} has an invalid value` })
        continue
      }
      const sqlOp = op ? RANGE_OPS[op] : '='
      filters.push({
        column: match[1],
        op: sqlOp,
        value,
        ...(declared && { where: (eb) => declared.where(eb, sqlOp, value, now) }),
      })
    }
  }
  const sort: SortKey[] = []
  for (const part of sortText.split(',')) {
    const descending = part.startsWith('-')
    const column = descending ? part.slice(1) : part
    if (!sortable.includes(column) || sort.some((k) => k.column === column)) {
      errors.push({
        field: 'sort',
        code: 'unknown_sort',
        message: `sort accepts ${sortable.join(', ')} (prefix - for descending)`,
      })
      break
    }
    sort.push({ column, descending })
  }
  // The id breaks ties, in the direction of the first key.
  sort.push({ column: 'id', descending: sort[0]?.descending ?? true })
  if (errors.length > 0) throw badRequest(errors)
  const after = cursor === undefined ? undefined : decodeCursor(cursor, sortText, sort.length)
  return { limit, sort, sortText, filters, ...(q !== undefined && { q }), ...(after && { after }) }
}

/** An opaque cursor: the sort it belongs to and the sort values of the last row served. */
export function encodeCursor(sortText: string, sort: readonly SortKey[], row: Row): string {
  return Buffer.from(JSON.stringify([sortText, sort.map((k) => row[k.column])])).toString(
    'base64url',
  )
}

function decodeCursor(cursor: string, sortText: string, length: number): unknown[] {
  try {
    const [forSort, values] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
    const scalar = (v: unknown) => v === null || typeof v === 'string' || typeof v === 'number'
    if (
      forSort === sortText &&
      Array.isArray(values) &&
      values.length === length &&
      values.every(scalar) &&
      !values.some((v) => typeof v === 'string' && v.includes('\0'))
    )
      return values
  } catch {
    // Answered below: whatever it is, it is not one of ours.
  }
  throw badRequest([
    {
      field: 'cursor',
      code: 'invalid_cursor',
      message: 'cursor is not one this list gave out with the same sort; start again without it',
    },
  ])
}
