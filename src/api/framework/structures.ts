import type { FieldError } from '../conventions.js'
import { type Field, type FieldOptions, fail, field, type JsonSchema } from './fields.js'
import type { Shown } from './views.js'

/**
 * A structured value (an object or a list of objects) with its own checker, stored as JSON
 * text. `check` validates and normalises, pushing errors under `path`.
 */
export function structure(
  schema: JsonSchema,
  check: (value: unknown, path: string, errors: FieldError[]) => unknown,
  options: FieldOptions = {},
): Field {
  return field(options, {
    schema,
    parse: check,
    toColumn: (v) => (v === null || v === undefined ? v : JSON.stringify(v)),
    fromColumn: (v) => (typeof v === 'string' ? JSON.parse(v) : null),
    parseQuery: () => undefined,
  })
}

/**
 * A value the server computes and a write never gives (a member's permissions, the plans that
 * include a product): read only, described by a view member (views.ts `shown`).
 */
export function derived(member: Shown<unknown>, options: FieldOptions = {}): Field {
  return structure(member.schema, () => undefined, { ...options, readOnly: true })
}

/**
 * An object of any members (a form's answers, keyed by the form's own questions): only its
 * being an object is checked here; `what` says what it holds, for the message.
 */
export function openObject(what: string, options: FieldOptions = {}): Field {
  return structure(
    { type: 'object', additionalProperties: true },
    (value, path, errors) =>
      typeof value === 'object' && value !== null && !Array.isArray(value)
        ? value
        : fail(errors, path, 'type', `${path} must be an object of ${what}`),
    options,
  )
}

/**
 * Checks an object against a map of member fields: unknown members refused, each member
 * parsed by its field (all optional unless marked required). Used inside `structure`.
 */
export function checkMembers(
  members: Record<string, Field>,
  value: unknown,
  path: string,
  errors: FieldError[],
): Record<string, unknown> | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return fail(errors, path, 'type', `${path} must be an object`)
  const out: Record<string, unknown> = {}
  for (const [key, member] of Object.entries(value as Record<string, unknown>)) {
    const spec = members[key]
    if (!spec) {
      fail(errors, `${path}.${key}`, 'unknown_field', `${path}.${key} is not a known field`)
      continue
    }
    if (member === null && spec.options.nullable) out[key] = null
    else out[key] = spec.parse(member, `${path}.${key}`, errors)
  }
  for (const [key, spec] of Object.entries(members)) {
    if (spec.options.required && !(key in out))
      fail(errors, `${path}.${key}`, 'required', `${path}.${key} is required`)
    else if (!(key in out) && spec.options.default !== undefined) out[key] = spec.options.default
  }
  return out
}

/** JSON Schema of an object made of member fields. */
export function membersSchema(members: Record<string, Field>): JsonSchema {
  const required = Object.entries(members)
    .filter(([, f]) => f.options.required)
    .map(([k]) => k)
  return {
    type: 'object',
    additionalProperties: false,
    properties: Object.fromEntries(Object.entries(members).map(([k, f]) => [k, f.schema()])),
    ...(required.length > 0 && { required }),
  }
}

/** A structure made of member fields (seo, links, colors …). */
export function object(members: Record<string, Field>, options: FieldOptions = {}): Field {
  const inner = structure(
    membersSchema(members),
    (value, path, errors) => checkMembers(members, value, path, errors),
    options,
  )
  return { ...inner, mergeable: true }
}

/** RFC 7396 JSON Merge Patch of `patch` onto `target`. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return patch
  const out: Record<string, unknown> =
    typeof target === 'object' && target !== null && !Array.isArray(target)
      ? { ...(target as Record<string, unknown>) }
      : {}
  for (const [key, value] of Object.entries(patch as Record<string, unknown>)) {
    if (value === null) delete out[key]
    else out[key] = mergePatch(out[key], value)
  }
  return out
}

export interface ListOptions extends FieldOptions {
  /** At most this many items (`maxItems`). */
  readonly max: number
  /** At least this many items (`minItems`; fewer: 422 `too_short`). */
  readonly min?: number
  /** What the items are, in the plural, for the messages (`prices`). */
  readonly noun: string
  /** An item member whose values may not repeat: the repeat is refused (422 `duplicate`). */
  readonly uniqueBy?: string
  /** Repeated scalar items are dropped, keeping the first (a list of ids). */
  readonly dropRepeats?: boolean
  /**
   * Members a read shows on each item beyond the writable ones (`created_at`, counts): in the
   * schema as read-only, and ignored when a write echoes them back. Each is a view member
   * (views.ts `shown`), or its schema.
   */
  readonly shown?: Readonly<Record<string, Shown<unknown> | JsonSchema>>
  /** A further check of each parsed item, pushing errors under `path` (item `[i]`). */
  readonly check?: (item: Record<string, unknown>, path: string, errors: FieldError[]) => void
}

const isShown = (member: Shown<unknown> | JsonSchema): member is Shown<unknown> =>
  typeof member.value === 'function'
const schemaOf = (member: Shown<unknown> | JsonSchema): JsonSchema =>
  isShown(member) ? member.schema : member

const isField = (items: Readonly<Record<string, Field>> | Field): items is Field =>
  typeof (items as Field).parse === 'function' && typeof (items as Field).schema === 'function'

/**
 * A list of items, each an object made of member fields or a single field's value: its JSON
 * Schema and its check come from the same declaration. Stored as JSON text, or handed to the
 * hooks as the parsed list when `virtual` (child rows the resource writes itself).
 */
export function list(items: Readonly<Record<string, Field>> | Field, options: ListOptions): Field {
  const { max, min, noun, shown = {} } = options
  const scalar = isField(items) ? items : undefined
  let itemSchema: JsonSchema
  if (scalar) itemSchema = scalar.schema()
  else {
    const members = membersSchema(items as Record<string, Field>)
    // Read-only after the type (and format), before the description, as written by hand.
    const extra = Object.entries(shown).map(([k, member]) => {
      const { description, ...s } = schemaOf(member)
      return [k, { ...s, readOnly: true, ...(description !== undefined && { description }) }]
    })
    itemSchema = {
      ...members,
      properties: { ...(members.properties as JsonSchema), ...Object.fromEntries(extra) },
    }
  }
  const parseItem = (entry: unknown, at: string, errors: FieldError[]): unknown => {
    if (scalar) return scalar.parse(entry, at, errors)
    const given =
      typeof entry === 'object' && entry !== null && !Array.isArray(entry)
        ? Object.fromEntries(Object.entries(entry).filter(([k]) => !(k in shown)))
        : entry
    return checkMembers(items as Record<string, Field>, given, at, errors)
  }
  const inner = field(options, {
    schema: {
      type: 'array',
      ...(min !== undefined && { minItems: min }),
      maxItems: max,
      items: itemSchema,
    },
    parse(value, path, errors) {
      if (!Array.isArray(value))
        return fail(errors, path, 'type', `${path} must be a list of ${noun}`)
      if (value.length > max)
        return fail(errors, path, 'too_long', `${path} may hold at most ${max} ${noun}`)
      if (min !== undefined && value.length < min)
        return fail(errors, path, 'too_short', `${path} must hold at least ${min} ${noun}`)
      const seen = new Set<unknown>()
      const out: unknown[] = []
      for (const [i, entry] of value.entries()) {
        const at = `${path}[${i}]`
        const item = parseItem(entry, at, errors)
        if (item === undefined) continue
        const record = item as Record<string, unknown>
        const key = options.uniqueBy ? record[options.uniqueBy] : item
        if (options.uniqueBy && key !== undefined && seen.has(key))
          fail(
            errors,
            `${at}.${options.uniqueBy}`,
            'duplicate',
            `${at}.${options.uniqueBy} repeats`,
          )
        if (options.dropRepeats && seen.has(key)) continue
        seen.add(key)
        if (!scalar) options.check?.(record, at, errors)
        out.push(item)
      }
      return out
    },
    toColumn: (v) => (options.virtual || v === null || v === undefined ? v : JSON.stringify(v)),
    fromColumn: (v) =>
      typeof v === 'string' ? JSON.parse(v) : Array.isArray(v) ? v : options.nullable ? null : [],
    parseQuery: () => undefined,
  })
  return inner
}
