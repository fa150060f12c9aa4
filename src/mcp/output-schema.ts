import type { JsonSchema } from '../api/framework/fields.js'
import { resourceSchemas } from '../api/framework/openapi.js'
import type { OperationSpec } from '../api/framework/operation.js'
import { RESOURCES } from '../api/registry.js'

const COMPONENT = '#/components/schemas/'

/** The component schemas the operations' documents refer to by `$ref`. */
const COMPONENTS: Readonly<Record<string, JsonSchema>> = resourceSchemas(RESOURCES)

/**
 * Keywords an output schema leaves out: the rules and prose of writing a record (lengths,
 * patterns, formats, descriptions), which the tool's input schema carries. An answer's
 * schema says its shape (types, enums, constants, members, nullability), a third of the size:
 * `tools/list` repeats a record's schema in every tool that answers it.
 */
const WRITE_SIDE = new Set([
  'description',
  'maxLength',
  'minLength',
  'pattern',
  'format',
  'maxItems',
  'minItems',
  'minimum',
  'maximum',
  'readOnly',
  'writeOnly',
  'contentMediaType',
  'examples',
  'uniqueItems',
])

/**
 * The schema with `#/components/schemas/X` refs pointing at `#/$defs/X`; the names it used.
 * `loose`: the answer may be a public projection, which leaves out private members of
 * nested structures too, so only top-level objects keep their `required`.
 */
function rewrite(value: unknown, used: Set<string>, loose: boolean, nested = false): unknown {
  if (Array.isArray(value)) return value.map((v) => rewrite(v, used, loose, nested))
  if (typeof value !== 'object' || value === null) return value
  const out: Record<string, unknown> = {}
  for (const [key, v] of Object.entries(value)) {
    if (key === '$ref' && typeof v === 'string' && v.startsWith(COMPONENT)) {
      const name = v.slice(COMPONENT.length)
      used.add(name)
      out.$ref = `#/$defs/${name}`
    } else if (key === 'required' && loose && nested) continue
    else if (WRITE_SIDE.has(key)) continue
    else if (key === 'properties' && typeof v === 'object' && v !== null)
      out[key] = Object.fromEntries(
        Object.entries(v).map(([name, member]) => [name, rewrite(member, used, loose, true)]),
      )
    else out[key] = rewrite(v, used, loose, nested)
  }
  return out
}

/**
 * The output schema of an operation's tool: the JSON Schema of its success answer with the
 * components it refers to carried along under `$defs`, so a client can check the answer
 * without the OpenAPI document. None when the answer is not a JSON object (204) or refers to
 * a schema this binding does not know.
 */
export function outputSchemaOf(operation: OperationSpec): JsonSchema | undefined {
  const responses = (operation.openapi.responses ?? {}) as Record<string, Record<string, unknown>>
  const success = Object.entries(responses)
    .filter(([status]) => /^2\d\d$/.test(status))
    .map(([, response]) => response)
  const schemas = success
    .map(
      (response) =>
        (response.content as Record<string, { schema?: JsonSchema }> | undefined)?.[
          'application/json'
        ]?.schema,
    )
    .filter((schema): schema is JsonSchema => schema !== undefined)
  const [schema] = schemas
  if (!schema || schemas.some((s) => JSON.stringify(s) !== JSON.stringify(schema))) return undefined
  const used = new Set<string>()
  const loose = operation.public === true
  const root = rewrite(schema, used, loose) as JsonSchema
  const defs: Record<string, unknown> = {}
  for (const name of used) {
    const component = COMPONENTS[name]
    if (!component) return undefined
    defs[name] = rewrite(component, used, loose)
  }
  // The root of an output schema must be an object (MCP 2025-06-18 §tools).
  const resolved = typeof root.$ref === 'string' ? COMPONENTS[String(root.$ref).slice(8)] : root
  const isObject = (resolved as JsonSchema | undefined)?.type === 'object'
  if (!isObject) return undefined
  if (typeof root.$ref === 'string')
    return { type: 'object', allOf: [{ $ref: root.$ref }], $defs: defs }
  return Object.keys(defs).length > 0 ? { ...root, $defs: defs } : root
}
