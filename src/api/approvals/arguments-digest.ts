import { createHash } from 'node:crypto'
import type { OperationInput } from '../framework/operation.js'

/**
 * Canonical JSON: object keys sorted (by UTF-16 code units), no whitespace, `undefined`
 * members left out, raw bytes as `{"$bytes":"<base64>"}`. Two calls with the same
 * arguments, however their members were ordered, have the same text.
 */
export function canonicalJson(value: unknown): string {
  if (value === undefined) return 'null'
  if (Buffer.isBuffer(value)) return canonicalJson({ $bytes: value.toString('base64') })
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null'
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, member]) => member !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  return `{${entries.map(([key, member]) => `${JSON.stringify(key)}:${canonicalJson(member)}`).join(',')}}`
}

/** SHA-256 (hex) of the canonical JSON of a call's params, query and body. */
export function argumentsDigest(input: Pick<OperationInput, 'params' | 'query' | 'body'>): string {
  return createHash('sha256')
    .update(canonicalJson({ params: input.params, query: input.query, body: input.body ?? null }))
    .digest('hex')
}
