import type { FieldError } from '../conventions.js'
import { validationFailed } from '../conventions.js'
import { ProblemError } from '../problem.js'
import { type Field, type FieldOptions, fail, field, type Row } from './fields.js'
import { FIELDS_DESCRIPTION, fieldsSchema, selectFields } from './list-params.js'

/**
 * A query member of an endpoint. `invalid` names the error a value its `parseQuery` refuses
 * gets (default: `invalid_value`, "<name> is not a valid value").
 */
export type QueryMember = Field & {
  readonly invalid?: { readonly code: string; readonly message: string }
}

/** A field as a query member whose unparsable values get this error code and message. */
export const queryMember = (field: Field, code: string, message: string): QueryMember => ({
  ...field,
  invalid: { code, message },
})

/** A query parameter taken as any string (`{ "type": "string" }`): a name, an opaque cursor. */
export function queryText(options: FieldOptions = {}): Field {
  return field(options, {
    schema: { type: 'string' },
    parse: (value, path, errors) =>
      typeof value === 'string' ? value : fail(errors, path, 'type', `${path} must be a string`),
    parseQuery: (raw) => raw,
  })
}

/** How an endpoint answers a bad query. */
export interface QueryRules {
  /** 422 `validation_failed` (default), or 400 `invalid_request` as lists answer. */
  readonly status?: 400 | 422
  /** Parameters the endpoint does not declare: refused (default) or ignored. */
  readonly unknown?: 'refuse' | 'ignore'
}

/** Field errors of a part of the input, named without the part (`body.name` → `name`). */
export function throwIfAny(errors: readonly FieldError[], part: string, status = 422): void {
  if (errors.length === 0) return
  const prefix = `${part}.`
  const strip = (text: string) => (text.startsWith(prefix) ? text.slice(prefix.length) : text)
  const named = errors.map((e) => ({ ...e, field: strip(e.field), message: strip(e.message) }))
  if (status === 422) throw validationFailed(named)
  throw new ProblemError(400, {
    code: 'invalid_request',
    title: 'Bad Request',
    detail: named[0]?.message ?? 'invalid query',
    errors: named,
  })
}

/**
 * Query members from strings (HTTP; a repeated parameter is refused as `repeated`) or JSON
 * values (other bindings); absent ones get their default, required ones must be there.
 */
export function checkQuery(
  members: Readonly<Record<string, QueryMember>>,
  query: Readonly<Record<string, unknown>>,
  rules: QueryRules = {},
): Row {
  const errors: FieldError[] = []
  const out: Row = {}
  for (const [key, raw] of Object.entries(query)) {
    const member = members[key]
    if (!member) {
      if (rules.unknown === 'ignore') continue
      const known = Object.keys(members).join(', ') || 'none'
      fail(
        errors,
        key,
        'unknown_parameter',
        `${key} is not a parameter of this operation; parameters: ${known}`,
      )
      continue
    }
    if (Array.isArray(raw) && raw.every((v) => typeof v === 'string')) {
      fail(errors, key, 'repeated', `${key} may be given only once`)
      continue
    }
    const value = typeof raw === 'string' ? member.parseQuery(raw) : member.parse(raw, key, errors)
    if (value === undefined && typeof raw === 'string')
      fail(
        errors,
        key,
        member.invalid?.code ?? 'invalid_value',
        member.invalid?.message ?? `${key} is not a valid value`,
      )
    else if (value !== undefined) out[key] = value
  }
  for (const [key, member] of Object.entries(members)) {
    if (key in out || errors.some((e) => e.field === key)) continue
    if (member.options.required) fail(errors, key, 'required', `${key} is required`)
    else if (member.options.default !== undefined) out[key] = member.options.default
  }
  throwIfAny(errors, 'query', rules.status)
  return out
}

/**
 * `fields`, the projection of a hand-written read, as resources take it: a comma-separated
 * list of the members of `what` (`selectable`), parsed to the set of members to answer
 * (`projected` applies it). Documented as a list (OpenAPI form style, not exploded).
 */
export function fieldsMember(selectable: readonly string[], what: string): QueryMember {
  const select = (raw: string) => selectFields(raw, selectable, what, [])
  return queryMember(
    field(
      { description: FIELDS_DESCRIPTION },
      {
        schema: fieldsSchema(selectable),
        parse: (value, path, errors) =>
          Array.isArray(value) && value.every((v) => typeof v === 'string')
            ? (select(value.join(',')) ??
              fail(errors, path, 'unknown_field', `${path} lists members of ${what}`))
            : fail(errors, path, 'type', `${path} must be a list of member names`),
        parseQuery: select,
      },
    ),
    'unknown_field',
    `fields lists members of ${what} separated by commas: ${selectable.join(', ')}`,
  )
}
