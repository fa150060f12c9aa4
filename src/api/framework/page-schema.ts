import type { JsonSchema } from './fields.js'

/**
 * The JSON Schema of one page of a list, the envelope every list of the API answers:
 * `object: "list"`, the records in `data`, `has_more` and the `next_cursor` to follow, and
 * `total_count` (required where the list always counts, as hand-written lists do).
 */
export function pageSchema(items: JsonSchema, options: { counted?: boolean } = {}): JsonSchema {
  return {
    type: 'object',
    required: [
      'object',
      'data',
      'has_more',
      'next_cursor',
      ...(options.counted ? ['total_count'] : []),
    ],
    properties: {
      object: { const: 'list' },
      data: { type: 'array', items },
      has_more: { type: 'boolean' },
      next_cursor: { type: ['string', 'null'] },
      total_count: { type: 'integer' },
    },
  }
}
