import { type FieldError, validationFailed } from '../conventions.js'
import type { Row } from './fields.js'
import type { ResourceDefinition } from './resource.js'
import { mergePatch } from './structures.js'

const SERVER_MEMBERS = new Set(['id', 'object', 'created_at', 'updated_at'])

/**
 * Checks a create or a PATCH (JSON merge: members present are set, null clears) against the
 * declaration and returns the column values. Unknown members and read-only ones are refused
 * with a 422 naming each; on create, required fields must be present and defaults fill in.
 * On update, object members merge into the stored value (`existing`).
 */
export function parseWrite(
  resource: ResourceDefinition,
  body: Record<string, unknown>,
  mode: 'create' | 'update',
  existing?: Row,
): Row {
  const errors: FieldError[] = []
  const values: Row = {}
  for (const [name, value] of Object.entries(body)) {
    const field = resource.fields[name]
    if (!field) {
      errors.push(
        SERVER_MEMBERS.has(name)
          ? { field: name, code: 'read_only', message: `${name} is set by the server` }
          : {
              field: name,
              code: 'unknown_field',
              message: `${name} is not a field of ${resource.object}`,
            },
      )
      continue
    }
    if (field.options.readOnly || (mode === 'update' && field.options.immutable)) {
      errors.push({ field: name, code: 'read_only', message: `${name} is read-only` })
      continue
    }
    if (value === null) {
      if (field.options.nullable) values[name] = null
      else errors.push({ field: name, code: 'required', message: `${name} may not be null` })
      continue
    }
    const merged =
      field.mergeable && existing
        ? mergePatch(field.fromColumn(existing[name] ?? null), value)
        : value
    const parsed = field.parse(merged, name, errors)
    if (parsed !== undefined) values[name] = field.toColumn(parsed)
  }
  if (mode === 'create') {
    for (const [name, field] of Object.entries(resource.fields)) {
      if (name in values || errors.some((e) => e.field === name)) continue
      if (field.options.default !== undefined)
        values[name] = field.toColumn(structuredClone(field.options.default))
      else if (field.options.required && !field.options.readOnly)
        errors.push({ field: name, code: 'required', message: `${name} is required` })
    }
  }
  if (errors.length > 0) throw validationFailed(errors)
  return values
}
