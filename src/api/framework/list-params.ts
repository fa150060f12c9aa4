import type { FieldError } from '../conventions.js'
import { ProblemError } from '../problem.js'
import { decodeListCursor } from './cursor.js'
import type { JsonSchema } from './fields.js'
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
  /** The columns `q` searches: those the caller may read. */
  readonly searchIn: readonly string[]
  readonly after?: readonly unknown[]
  /** The members each record is answered with (`fields`); absent: all the caller may see. */
  readonly fields?: ReadonlySet<string>
}

/** Columns every record shows in every projection. */
const ALWAYS_SHOWN = new Set(['id', 'created_at', 'updated_at'])

/**
 * Whether a caller who reads only the public projection may see `name`'s value. Anything
 * else (a hidden field, a column that is no field) is hidden, so a slip fails closed.
 */
export function isPublicColumn(resource: ResourceDefinition, name: string): boolean {
  return ALWAYS_SHOWN.has(name) || resource.fields[name]?.options.public === true
}

/**
 * Fields usable in `sort`: the declared ones plus the timestamps every record has; for a
 * caller who reads only the public projection (`full` false), only public ones.
 */
export function sortableOf(resource: ResourceDefinition, full = true): string[] {
  return [
    ...Object.entries(resource.fields)
      .filter(([, f]) => f.options.sortable && (full || f.options.public))
      .map(([name]) => name),
    'created_at',
    'updated_at',
  ]
}

/** Query parameters usable as filters, as `name` or `name[op]`, by this caller. */
export function filterableOf(resource: ResourceDefinition, full = true): string[] {
  const own = Object.entries(resource.fields)
    .filter(([, f]) => f.options.filter)
    .map(([name]) => name)
  return [...new Set([...own, ...Object.keys(resource.filters ?? {})])].filter(
    (name) => full || filterOf(resource, name)?.public,
  )
}

/**
 * The field that parses a filter's value, the declared condition if it has one, and whether
 * it reads only public values (so that the public may use it).
 */
export function filterOf(resource: ResourceDefinition, name: string) {
  const field = resource.fields[name]
  if (field?.options.filter)
    return { field, declared: undefined, public: field.options.public === true }
  const declared = resource.filters?.[name]
  return (
    declared && {
      field: declared.field,
      declared,
      public: declared.reads.length > 0 && declared.reads.every((c) => isPublicColumn(resource, c)),
    }
  )
}

/** The columns `q` searches, for this caller. */
export function searchableOf(resource: ResourceDefinition, full = true): string[] {
  return Object.entries(resource.fields)
    .filter(([, f]) => f.options.search && (full || f.options.public))
    .map(([name]) => name)
}

/** A parameter that names something only full readers may query (an oracle otherwise). */
function notPublic(resource: ResourceDefinition, field: string, what: string): FieldError {
  return {
    field,
    code: 'not_public',
    message: `${what} reads values that are not public; it needs the ${resource.scopes.read} scope`,
  }
}

function badRequest(errors: FieldError[]): ProblemError {
  return new ProblemError(400, {
    code: 'invalid_request',
    title: 'Bad Request',
    detail: errors.length === 1 ? (errors[0]?.message ?? 'invalid query') : 'invalid query',
    errors,
  })
}

/** Members every projection keeps, whatever `fields` names: a record is always identified. */
export const ALWAYS_PROJECTED: readonly string[] = ['id', 'object']

/**
 * The members `fields` may name: those of the record (for a caller who reads only the public
 * projection, `full` false, only the public ones) with its id, type and timestamps.
 */
export function selectableOf(resource: ResourceDefinition, full = true): string[] {
  return [
    ...ALWAYS_PROJECTED,
    ...Object.entries(resource.fields)
      .filter(([, f]) => full || f.options.public)
      .map(([name]) => name),
    'created_at',
    'updated_at',
  ]
}

/** The JSON Schema of `fields` choosing among `selectable` (comma-separated over HTTP). */
export function fieldsSchema(selectable: readonly string[]): JsonSchema {
  return {
    type: 'array',
    items: { type: 'string', enum: [...selectable] },
    minItems: 1,
    uniqueItems: true,
  }
}

/** What `fields` is, said once for every read that takes it. */
export const FIELDS_DESCRIPTION =
  'Only these members of each record (comma-separated; id and object are always answered). The ETag is that of the projection: If-Match takes the ETag of the whole record.'

/**
 * The members a `fields` value (comma-separated) selects among `selectable`, `id` and
 * `object` among them. A name that `refuse` refuses (a field the caller may not see), or
 * that is not selectable, adds an error and selects nothing.
 */
export function selectFields(
  raw: string,
  selectable: readonly string[],
  what: string,
  errors: FieldError[],
  refuse: (name: string) => FieldError | undefined = () => undefined,
): Set<string> | undefined {
  const known = new Set(selectable)
  const selected = new Set(ALWAYS_PROJECTED)
  for (const name of raw.split(',')) {
    const refused = refuse(name)
    if (refused) {
      errors.push(refused)
      return undefined
    }
    if (!known.has(name)) {
      errors.push({
        field: 'fields',
        code: 'unknown_field',
        message:
          name === ''
            ? 'fields lists members separated by single commas'
            : `${name.slice(0, 100)} is not a member of ${what}; fields: ${selectable.join(', ')}`,
      })
      return undefined
    }
    selected.add(name)
  }
  return selected
}

/** `fields` of a resource's read: the members this caller may see (`full` or public ones). */
function readFields(
  resource: ResourceDefinition,
  raw: string,
  full: boolean,
  errors: FieldError[],
): Set<string> | undefined {
  return selectFields(raw, selectableOf(resource, full), resource.collection, errors, (name) =>
    !full && name in resource.fields && !isPublicColumn(resource, name)
      ? notPublic(resource, 'fields', `the field ${name}`)
      : undefined,
  )
}

/**
 * The projection a single read asks for (`fields`), or undefined for the whole record. Other
 * query parameters are not this function's business.
 */
export function parseFields(
  resource: ResourceDefinition,
  query: Readonly<Record<string, unknown>>,
  full = true,
): ReadonlySet<string> | undefined {
  const raw = query.fields
  if (raw === undefined) return undefined
  if (typeof raw !== 'string')
    throw badRequest([
      { field: 'fields', code: 'repeated', message: 'fields may be given only once' },
    ])
  const errors: FieldError[] = []
  const fields = readFields(resource, raw, full, errors)
  if (!fields) throw badRequest(errors)
  return fields
}

/** A record's JSON reduced to the members `fields` selected (all when none were). */
export function projected(
  view: Record<string, unknown>,
  fields: ReadonlySet<string> | undefined,
): Record<string, unknown> {
  if (!fields) return view
  return Object.fromEntries(Object.entries(view).filter(([name]) => fields.has(name)))
}

/**
 * Reads `limit`, `cursor`, `sort`, `q`, `fields` and the declared filters; anything else is
 * a 400 naming the parameter, never silently ignored.
 */
export function parseListParams(
  resource: ResourceDefinition,
  query: Record<string, unknown>,
  now = Date.now(),
  full = true,
): ListParams {
  const errors: FieldError[] = []
  const filters: Filter[] = []
  const sortable = sortableOf(resource, full)
  const searchIn = searchableOf(resource, full)
  let limit = DEFAULT_LIMIT
  let sortText = resource.defaultSort ?? '-created_at'
  let cursor: string | undefined
  let q: string | undefined
  let fields: Set<string> | undefined
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
    else if (name === 'q' && searchIn.length > 0) q = raw
    else if (name === 'fields') fields = readFields(resource, raw, full, errors)
    else {
      const match = /^([a-z_]+)(?:\[(gt|gte|lt|lte)\])?$/.exec(name)
      const filter = match?.[1] ? filterOf(resource, match[1]) : undefined
      if (!match?.[1] || !filter) {
        errors.push({
          field: name,
          code: 'unknown_parameter',
          message: `${name} is not a filter of ${resource.collection}; filters: ${filterableOf(resource, full).join(', ') || 'none'}`,
        })
        continue
      }
      if (!full && !filter.public) {
        errors.push(notPublic(resource, name, `the filter ${match[1]}`))
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
    if (!full && !sortable.includes(column) && sortableOf(resource).includes(column)) {
      errors.push(notPublic(resource, 'sort', `sorting by ${column}`))
      break
    }
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
  const after =
    cursor === undefined ? undefined : decodeListCursor(resource, cursor, sortText, sort)
  return {
    limit,
    sort,
    sortText,
    filters,
    searchIn,
    ...(q !== undefined && { q }),
    ...(after && { after }),
    ...(fields && { fields }),
  }
}
