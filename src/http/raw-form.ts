import { parse } from 'fast-querystring'

/** Where a parsed form keeps the body it was parsed from (not enumerable: never a field). */
const RAW_FORM = Symbol('raw form body')

/**
 * Parses an `application/x-www-form-urlencoded` body exactly as @fastify/formbody does by
 * default (fast-querystring, its own parser), and keeps the body as sent beside the fields:
 * the authorization endpoint checks that a form-posted `state` is UTF-8 before it promises
 * to return it byte for byte, which the decoded value alone cannot tell.
 */
export function parseForm(body: string): Record<string, unknown> {
  const fields = parse(body) as Record<string, unknown>
  Object.defineProperty(fields, RAW_FORM, { value: body })
  return fields
}

/** The body a form was parsed from, as a query string (`?` + body), if it was one. */
export function rawFormQuery(fields: unknown): string | undefined {
  if (typeof fields !== 'object' || fields === null) return undefined
  const raw = (fields as { [RAW_FORM]?: unknown })[RAW_FORM]
  return typeof raw === 'string' ? `?${raw}` : undefined
}
