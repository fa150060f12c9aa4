import type { FieldError } from '../conventions.js'
import { type Field, type FieldOptions, fail, field, type JsonSchema } from './fields.js'

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
