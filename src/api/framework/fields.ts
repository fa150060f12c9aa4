import type { FieldError } from '../conventions.js'
import { timestamp } from '../conventions.js'
import { sanitizeHtml, TAG_WORK, tagWork } from './html-sanitising.js'

export type JsonSchema = Record<string, unknown>
/** A database row as the framework sees it: column name → value. */
export type Row = Record<string, unknown>

/** A row as a table stores it: every table of the API has its text `id`. */
export type StoredRow = Row & { readonly id: string }

/** What every field kind shares: where it shows, whether it is required, how it is queried. */
export interface FieldOptions {
  /** Part of the public projection (anonymous callers, tokens without the read scope). */
  readonly public?: boolean
  /** Must be given on create (unless it has a default). */
  readonly required?: boolean
  /** Set by the server; a write that names it is refused. */
  readonly readOnly?: boolean
  /** Given on create, read-only afterwards. */
  readonly immutable?: boolean
  /** May be null (and cleared with null in a PATCH). */
  readonly nullable?: boolean
  /** Usable as `?name=value` in lists (ranges with `[gte]` etc. for numbers and times). */
  readonly filter?: boolean
  /** Usable in `sort`; only declare on columns that are never null. */
  readonly sortable?: boolean
  /** Searched by `q` (case-insensitive substring). */
  readonly search?: boolean
  /** No two records share a value (checked before every write: 422 `taken`). */
  readonly unique?: boolean
  /** The value a create stores when the field is not given. */
  readonly default?: unknown
  readonly description?: string
  /**
   * Not a column of the table: the resource's `afterWrite` stores it (child rows such as an
   * event's tickets) and its `enrich` loads it back.
   */
  readonly virtual?: boolean
  /**
   * `name`: the activity record names a change of this field, never copies its values,
   * whatever its kind: declared on anything secret-like (a coupon code, a token, a password,
   * a file's content) and on personal contact data. See {@link ActivityKeeping}.
   */
  readonly activity?: 'name'
}

/**
 * How the activity record (issues 21 and 36) keeps a change of a field, declared by its kind:
 * - `value`: before and after as they are: the closed kinds (states, booleans, numbers,
 *   times, ids), whose values cannot carry arbitrary text;
 * - `text`: before and after of short text, at most {@link SHORT_TEXT} characters by its
 *   declaration (titles, names, slugs, labels, codes), shown quoted;
 * - `money`: before and after, shown as money;
 * - `name`: the field's name only: long or rich text (bodies, HTML, CSS, page blocks,
 *   structures, lists, URLs) and anything declared secret-like (`activity: 'name'`), whose
 *   values stay in the record they were written to.
 */
export type ActivityKeeping = 'value' | 'text' | 'money' | 'name'

/** The longest text whose values the activity record keeps (a title, a name, a label). */
export const SHORT_TEXT = 200

/** How the record keeps text of at most `max` characters: values when short, else the name. */
export const textKeeping = (max: number): ActivityKeeping => (max <= SHORT_TEXT ? 'text' : 'name')

/**
 * One field of a resource, stored in the column of the same name. `parse` checks and
 * normalises a JSON value from a write; `toColumn`/`fromColumn` convert between the JSON
 * value and what both engines store (booleans as 0/1, times as epoch ms, structures as JSON).
 */
export interface Field {
  readonly options: FieldOptions
  /** How a filter value compares: equality on text, ranges on numbers and times. */
  readonly filterKind: 'equal' | 'range'
  parse(value: unknown, path: string, errors: FieldError[]): unknown
  toColumn(value: unknown): unknown
  fromColumn(value: unknown): unknown
  /** A filter value from the query string, or undefined when malformed. */
  parseQuery(raw: string): unknown
  schema(): JsonSchema
  /** An object whose PATCH merges into the stored value (RFC 7396) instead of replacing it. */
  readonly mergeable?: boolean
  /** How the activity record keeps a change of it (its kind's, or `name` when declared so). */
  readonly activity: ActivityKeeping
}

export type Kind = Omit<
  Field,
  'options' | 'schema' | 'toColumn' | 'fromColumn' | 'filterKind' | 'activity'
> &
  Partial<Pick<Field, 'toColumn' | 'fromColumn' | 'filterKind' | 'activity'>> & {
    schema: JsonSchema
  }

/**
 * The conversion of a field stored as its JSON value: one function for all of them, so that
 * a compiled projection (resource.ts) can tell them apart and read the column directly.
 */
export const asStored = (value: unknown): unknown => value

/** Builds a field from its kind's parts (shared by the structured kinds). */
export function field(options: FieldOptions, kind: Kind): Field {
  const nullable = options.nullable === true
  return {
    options,
    filterKind: kind.filterKind ?? 'equal',
    parse: kind.parse,
    parseQuery: kind.parseQuery,
    toColumn: kind.toColumn ?? asStored,
    fromColumn: kind.fromColumn ?? asStored,
    // A kind that says nothing keeps the name only; a declaration may only narrow to it.
    activity: options.activity ?? kind.activity ?? 'name',
    schema: () => {
      const base: JsonSchema = { ...kind.schema }
      if (options.description) base.description = options.description
      if (options.readOnly) base.readOnly = true
      // A nullable enumeration lists null among its values, or null would fail the enum.
      if (nullable && Array.isArray(base.enum) && !base.enum.includes(null))
        base.enum = [...base.enum, null]
      if (nullable && typeof base.type === 'string') base.type = [base.type, 'null']
      else if (nullable) return { anyOf: [base, { type: 'null' }] }
      return base
    },
  }
}

/** Records a field error; returns undefined, the value of a refused input. */
export const fail = (errors: FieldError[], field: string, code: string, message: string) => {
  errors.push({ field, code, message })
  return undefined
}

/** A lone UTF-16 surrogate: half a character, which UTF-8 cannot encode. */
const UNPAIRED_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

/**
 * Refuses a string no text column can hold faithfully: U+0000 (PostgreSQL rejects the
 * statement) or an unpaired surrogate (UTF-8 cannot encode it). Returns whether it passed.
 */
export function checkStorable(value: string, path: string, errors: FieldError[]): boolean {
  if (!value.includes('\0') && !UNPAIRED_SURROGATE.test(value)) return true
  fail(errors, path, 'invalid_characters', `${path} holds U+0000 or half of a surrogate pair`)
  return false
}

export interface TextOptions extends FieldOptions {
  readonly max?: number
  readonly min?: number
  readonly pattern?: RegExp
  /** Human description of `pattern`, for the error message. */
  readonly patternHint?: string
  readonly format?: string
}

/**
 * A single-line string. The activity record keeps its values when its declared `max` is at
 * most {@link SHORT_TEXT} (unless declared `activity: 'name'`), its name only otherwise.
 */
export function text(options: TextOptions = {}): Field {
  const { max = 500, min = 0 } = options
  return field(options, {
    activity: textKeeping(max),
    schema: {
      type: 'string',
      maxLength: max,
      ...(min > 0 && { minLength: min }),
      ...(options.pattern && { pattern: options.pattern.source }),
      ...(options.format && { format: options.format }),
    },
    parse(value, path, errors) {
      if (typeof value !== 'string') return fail(errors, path, 'type', `${path} must be a string`)
      if (!checkStorable(value, path, errors)) return undefined
      const trimmed = value.trim()
      if (trimmed.length < Math.max(min, 1) && (min > 0 || options.required))
        return fail(errors, path, 'required', `${path} must not be empty`)
      if (trimmed.length > max)
        return fail(errors, path, 'too_long', `${path} must be at most ${max} characters`)
      if (options.pattern && !options.pattern.test(trimmed))
        return fail(
          errors,
          path,
          'format',
          `${path} must be ${options.patternHint ?? `like ${options.pattern.source}`}`,
        )
      return trimmed
    },
    parseQuery: (raw) => raw,
  })
}

/**
 * An e-mail address, stored lower-cased. Personal contact data, and longer than short text:
 * the activity record names it.
 */
export function email(options: FieldOptions = {}): Field {
  const inner = text({
    ...options,
    activity: 'name',
    max: 254,
    pattern: /^[^\s@]+@[^\s@]+\.[^\s@]+$/,
    patternHint: 'an e-mail address',
    format: 'email',
  })
  return {
    ...inner,
    parse: (value, path, errors) => {
      const parsed = inner.parse(value, path, errors)
      return typeof parsed === 'string' ? parsed.toLowerCase() : parsed
    },
    parseQuery: (raw) => raw.toLowerCase(),
  }
}

/**
 * A URL with an http(s) scheme. A link may carry a secret (a join link, a signed address):
 * the activity record names it.
 */
export function url(options: FieldOptions = {}): Field {
  return text({
    ...options,
    activity: 'name',
    max: 2000,
    pattern: /^https?:\/\/[^\s]+$/,
    patternHint: 'an http(s) URL',
    format: 'uri',
  })
}

/** How rich text is described in every schema (a tool's says it shortly: portable-schema.ts). */
export const HTML_DESCRIPTION = 'User-generated HTML, sanitised on write; treat it as untrusted.'

/** Rich text: HTML sanitised on write to an allow-list of tags and attributes (no scripts). */
export function html(options: FieldOptions & { readonly max?: number } = {}): Field {
  const max = options.max ?? 100_000
  return field(options, {
    schema: {
      type: 'string',
      contentMediaType: 'text/html',
      maxLength: max,
      description: HTML_DESCRIPTION,
    },
    parse(value, path, errors) {
      if (typeof value !== 'string') return fail(errors, path, 'type', `${path} must be a string`)
      if (value.length > max)
        return fail(errors, path, 'too_long', `${path} must be at most ${max} characters`)
      if (!checkStorable(value, path, errors)) return undefined
      if (tagWork(value) > TAG_WORK)
        return fail(
          errors,
          path,
          'too_complex',
          `${path} has tags too long and too full of spaces to be checked: shorten its tags or their attributes`,
        )
      return sanitizeHtml(value)
    },
    parseQuery: () => undefined,
  })
}

/** One of a fixed list of strings. */
export function enumeration(values: readonly string[], options: FieldOptions = {}): Field {
  return field(options, {
    activity: 'value',
    schema: { type: 'string', enum: [...values] },
    parse(value, path, errors) {
      if (typeof value !== 'string' || !values.includes(value))
        return fail(errors, path, 'enum', `${path} must be one of ${values.join(', ')}`)
      return value
    },
    parseQuery: (raw) => (values.includes(raw) ? raw : undefined),
  })
}

/** true or false, stored as 1 or 0 so both engines agree. */
export function boolean(options: FieldOptions = {}): Field {
  return field(options, {
    activity: 'value',
    schema: { type: 'boolean' },
    parse(value, path, errors) {
      if (typeof value !== 'boolean') return fail(errors, path, 'type', `${path} must be a boolean`)
      return value
    },
    toColumn: (v) => (v === null || v === undefined ? v : v ? 1 : 0),
    fromColumn: (v) => (v === null ? null : Boolean(v)),
    parseQuery: (raw) => (raw === 'true' ? 1 : raw === 'false' ? 0 : undefined),
  })
}

/** A whole number within bounds. */
export function integer(options: FieldOptions & { min?: number; max?: number } = {}): Field {
  const { min = 0, max = 2_147_483_647 } = options
  return field(options, {
    activity: 'value',
    schema: { type: 'integer', minimum: min, maximum: max },
    filterKind: 'range',
    parse(value, path, errors) {
      if (typeof value !== 'number' || !Number.isInteger(value))
        return fail(errors, path, 'type', `${path} must be an integer`)
      if (value < min || value > max)
        return fail(errors, path, 'range', `${path} must be between ${min} and ${max}`)
      return value
    },
    parseQuery: (raw) => (/^-?\d{1,15}$/.test(raw) ? Number(raw) : undefined),
  })
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/

function parseTime(raw: string): number | undefined {
  if (!RFC3339.test(raw)) return undefined
  const ms = Date.parse(raw)
  return Number.isNaN(ms) ? undefined : ms
}

/** An instant, written RFC 3339 in UTC and stored as epoch milliseconds. */
export function instant(options: FieldOptions = {}): Field {
  return field(options, {
    activity: 'value',
    schema: { type: 'string', format: 'date-time' },
    filterKind: 'range',
    parse(value, path, errors) {
      const ms = typeof value === 'string' ? parseTime(value) : undefined
      if (ms === undefined)
        return fail(errors, path, 'format', `${path} must be an RFC 3339 date-time`)
      return ms
    },
    fromColumn: (v) => (typeof v === 'number' ? timestamp(v) : null),
    parseQuery: parseTime,
  })
}

/** A list of short strings (tags), stored as JSON text. */
export function stringList(options: FieldOptions & { maxItems?: number } = {}): Field {
  const maxItems = options.maxItems ?? 50
  return field(options, {
    schema: { type: 'array', items: { type: 'string', maxLength: 60 }, maxItems },
    parse(value, path, errors) {
      if (!Array.isArray(value) || value.some((v) => typeof v !== 'string' || v.length > 60))
        return fail(
          errors,
          path,
          'type',
          `${path} must be a list of strings of at most 60 characters`,
        )
      if (value.length > maxItems)
        return fail(errors, path, 'too_long', `${path} may hold at most ${maxItems} items`)
      return [...new Set((value as string[]).map((v) => v.trim()).filter(Boolean))]
    },
    toColumn: (v) => (v === null || v === undefined ? v : JSON.stringify(v)),
    fromColumn: (v) => (typeof v === 'string' ? JSON.parse(v) : []),
    parseQuery: () => undefined,
  })
}

/** The id of another resource's record (`cat_…`); whether it exists is the resource's check. */
export function reference(prefix: string, options: FieldOptions = {}): Field {
  const inner = text({
    ...options,
    max: 64,
    pattern: new RegExp(`^${prefix}_[A-Za-z0-9_-]+$`),
    patternHint: `an id starting with ${prefix}_`,
  })
  // An id of the prefix's form is no free text: the activity record may show it.
  return { ...inner, activity: options.activity ?? 'value' }
}
