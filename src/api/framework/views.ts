import { timestamp } from '../conventions.js'
import { CURRENCY_RULE } from '../money/definitions.js'
import type { Field, JsonSchema } from './fields.js'

/**
 * Answers that no resource declaration describes (a file, an attendee, progress, a report):
 * each is declared once as a view, member by member, and the view yields both the JSON the
 * answer sends and its JSON Schema (OpenAPI, MCP output schemas), so a member added to an
 * answer cannot be missing from its schema, nor the other way round.
 */

/** One member of a view: its JSON Schema, and its value in an answer. */
export interface Shown<S> {
  readonly schema: JsonSchema
  /** The value from the source; `undefined` leaves the member out of the answer. */
  value(source: S, name: string): unknown
}

/** What every kind of member may say. */
export interface ShownOptions<S> {
  readonly description?: string
  /** Where the value comes from (default: the source's member of the same name). */
  readonly from?: (source: S) => unknown
  /** Null is a value (the schema says so). */
  readonly nullable?: boolean
  /** Left out of the answer when null or absent (a file's width when it is no image). */
  readonly omitNull?: boolean
}

/** A view: the members of an answer, in order. */
export interface View<S> {
  readonly schema: JsonSchema
  /** The members' names (what `fields` may name). */
  readonly names: readonly string[]
  /** The answer's JSON for one source. */
  show(source: S): Record<string, unknown>
}

export interface ViewOptions<M> {
  /** The members every answer carries (default: none). */
  readonly required?: readonly (keyof M & string)[]
  readonly description?: string
  /** The schema refuses undeclared members (`additionalProperties: false`). */
  readonly closed?: boolean
}

type SchemaParts = Readonly<Record<string, unknown>>

const read = (source: unknown, name: string): unknown =>
  (source as Readonly<Record<string, unknown>>)[name]

/** The parts every kind shares: nullability, the description last, where the value comes from. */
function member<S>(
  parts: SchemaParts,
  options: ShownOptions<S>,
  convert: (value: unknown) => unknown = (value) => value,
): Shown<S> {
  const { description, from, nullable, omitNull } = options
  const schema: Record<string, unknown> = { ...parts }
  if (nullable && typeof schema.type === 'string') schema.type = [schema.type, 'null']
  if (description !== undefined) schema.description = description
  return {
    schema,
    value(source, name) {
      const value = from ? from(source) : read(source, name)
      if (value === null || value === undefined)
        return omitNull ? undefined : nullable ? null : value
      return convert(value)
    },
  }
}

/** The bounds a number may declare. */
interface Bounds {
  readonly minimum?: number
  readonly maximum?: number
}

/** An integer or a number, with its bounds: stored as either engine returns it, shown as one. */
function numeric<S>(type: 'integer' | 'number', options: ShownOptions<S> & Bounds): Shown<S> {
  const { minimum, maximum } = options
  return member(
    {
      type,
      ...(minimum !== undefined && { minimum }),
      ...(maximum !== undefined && { maximum }),
    },
    options,
    Number,
  )
}

const toTime = (value: unknown) => (typeof value === 'string' ? value : timestamp(Number(value)))

/** The kinds of members, each with the schema it writes and the conversion it makes. */
export const shown = {
  /** The same value in every answer (`object`). */
  constant: <S>(value: string, options: { description?: string } = {}): Shown<S> => ({
    schema: { const: value, ...(options.description !== undefined && options) },
    value: () => value,
  }),
  /** An id: its prefix as the pattern, when given. */
  id: <S>(prefix?: string, options: ShownOptions<S> = {}): Shown<S> =>
    member({ type: 'string', ...(prefix !== undefined && { pattern: `^${prefix}_` }) }, options),
  string: <S>(
    options: ShownOptions<S> & {
      readonly enum?: readonly string[]
      readonly pattern?: string
      readonly format?: 'date' | 'email' | 'uri'
    } = {},
  ): Shown<S> => {
    const { enum: values, pattern, format } = options
    return member(
      {
        type: 'string',
        ...(values !== undefined && {
          enum: options.nullable ? [...values, null] : [...values],
        }),
        ...(format !== undefined && { format }),
        ...(pattern !== undefined && { pattern }),
      },
      options,
    )
  },
  integer: <S>(options: ShownOptions<S> & Bounds = {}): Shown<S> => numeric('integer', options),
  number: <S>(options: ShownOptions<S> & Bounds = {}): Shown<S> => numeric('number', options),
  boolean: <S>(options: ShownOptions<S> = {}): Shown<S> =>
    member({ type: 'boolean' }, options, (value) => value === true || value === 1),
  /** An instant: stored as epoch milliseconds, shown as RFC 3339 in UTC. */
  time: <S>(options: ShownOptions<S> = {}): Shown<S> =>
    member({ type: 'string', format: 'date-time' }, options, toTime),
  /** Any JSON value (a recorded value before and after a change). */
  any: <S>(options: ShownOptions<S> = {}): Shown<S> => member({}, options),
  /** A per-currency list of Money, described by its definition (src/api/money/definitions.ts). */
  money: <S>(definition: string, options: Omit<ShownOptions<S>, 'description'> = {}): Shown<S> =>
    member(
      { type: 'array', minItems: 1, items: MONEY.schema },
      { ...options, description: `${definition} ${CURRENCY_RULE}` },
      (list) => (list as readonly unknown[]).map((m) => MONEY.show(m)),
    ),
  /** A value written by a field of a declaration: the field's own schema. */
  field: <S>(field: Field, options: Omit<ShownOptions<S>, 'nullable' | 'description'> = {}) =>
    member<S>(
      field.schema(),
      { ...options, nullable: field.options.nullable === true },
      field.fromColumn,
    ),
  /** An object of any keys (a product type), each value a view. */
  map: <S, T>(inner: View<T>, options: ShownOptions<S> = {}): Shown<S> =>
    member({ type: 'object', additionalProperties: inner.schema }, options, (v) =>
      Object.fromEntries(
        Object.entries(v as Readonly<Record<string, T>>).map(([key, each]) => [
          key,
          inner.show(each),
        ]),
      ),
    ),
  /**
   * A record of a resource, as its declaration shows it (its OpenAPI component, by name), with
   * the members of `more` besides (`allOf`). The record's own members come projected already.
   */
  record: <S>(component: string, more?: View<unknown>, options: ShownOptions<S> = {}): Shown<S> => {
    const ref = { $ref: `#/components/schemas/${component}` }
    return member(more ? { allOf: [ref, more.schema] } : ref, options, (v) =>
      more ? { ...(v as Readonly<Record<string, unknown>>), ...more.show(v) } : v,
    )
  },
  /** A nested object, itself a view. */
  object: <S, T>(inner: View<T>, options: ShownOptions<S> = {}): Shown<S> => {
    const { description: own, ...schema } = inner.schema
    return member(
      schema,
      { ...options, description: options.description ?? (own as string) },
      (v) => inner.show(v as T),
    )
  },
  /** A list of objects (a view) or of values (a member). */
  list: <S, T>(
    items: View<T> | Shown<T>,
    options: ShownOptions<S> & { readonly maxItems?: number } = {},
  ): Shown<S> => {
    const each = 'show' in items ? (v: unknown) => items.show(v as T) : (v: unknown) => v
    const { maxItems } = options
    return member(
      { type: 'array', ...(maxItems !== undefined && { maxItems }), items: items.schema },
      options,
      (list) => (list as readonly unknown[]).map(each),
    )
  },
}

/** Declares an answer member by member: its JSON, and the schema of exactly that JSON. */
export function view<S, M extends Record<string, Shown<S>> = Record<string, Shown<S>>>(
  members: M,
  options: ViewOptions<M> = {},
): View<S> {
  const entries = Object.entries(members)
  const required = options.required ?? []
  const schema: JsonSchema = {
    type: 'object',
    ...(options.description !== undefined && { description: options.description }),
    ...(required.length > 0 && { required: [...required] }),
    ...(options.closed && { additionalProperties: false }),
    properties: Object.fromEntries(entries.map(([name, m]) => [name, m.schema])),
  }
  return {
    schema,
    names: entries.map(([name]) => name),
    show(source) {
      const out: Record<string, unknown> = {}
      for (const [name, m] of entries) {
        const value = m.value(source, name)
        if (value !== undefined) out[name] = value
      }
      return out
    },
  }
}

/** Money as every answer writes it: integer minor units and an ISO 4217 currency. */
export const MONEY = view<unknown>(
  {
    amount: shown.integer({ description: 'Integer minor units' }),
    currency: shown.string({ pattern: '^[A-Z]{3}$', description: 'ISO 4217' }),
  },
  { required: ['amount', 'currency'], closed: true },
)
