import type { JsonSchema } from './fields.js'

interface OpenApiParameter {
  readonly name: string
  readonly in: string
  readonly required?: boolean
  readonly schema?: JsonSchema
  readonly description?: string
}

/** An object schema of named members (each with its description, when it has one). */
function objectOf(parameters: readonly OpenApiParameter[]): JsonSchema {
  const required = parameters.filter((p) => p.required).map((p) => p.name)
  return {
    type: 'object',
    additionalProperties: false,
    properties: Object.fromEntries(
      parameters.map((p) => [
        p.name,
        { ...p.schema, ...(p.description !== undefined && { description: p.description }) },
      ]),
    ),
    ...(required.length > 0 && { required }),
  }
}

/**
 * The one JSON Schema of an operation's input, from the same parameters and body schema its
 * OpenAPI entry lists: `params` (path), `query` and `body` members, each only when taken.
 * Header parameters (If-Match, Idempotency-Key) are the binding's business, not listed.
 */
export function inputSchemaOf(
  parameters: readonly unknown[],
  body?: { readonly schema: JsonSchema; readonly required: boolean },
): JsonSchema {
  const list = parameters as readonly OpenApiParameter[]
  const path = list.filter((p) => p.in === 'path')
  const query = list.filter((p) => p.in === 'query')
  const properties: Record<string, JsonSchema> = {}
  const required: string[] = []
  if (path.length > 0) {
    properties.params = objectOf(path)
    required.push('params')
  }
  if (query.length > 0) properties.query = objectOf(query)
  if (body) {
    properties.body = body.schema
    if (body.required) required.push('body')
  }
  return {
    type: 'object',
    additionalProperties: false,
    properties,
    ...(required.length > 0 && { required }),
  }
}
