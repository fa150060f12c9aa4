/**
 * If-None-Match on a GET (RFC 9110 §13.1.2): whether the representation's entity tag matches
 * one the client already holds, so the answer is 304 Not Modified without a body (§15.4.5).
 * `*` matches any current representation; tags compare weakly (§8.8.3.2: `W/"x"` matches
 * `"x"`). A malformed member matches nothing, so the full answer is sent.
 */
export function ifNoneMatchHolds(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false
  const value = header.trim()
  if (value === '*') return true
  const opaque = weak(etag)
  return value.split(',').some((member) => weak(member.trim()) === opaque)
}

/** The opaque tag of an entity tag, without its weakness indicator. */
const weak = (tag: string): string => (tag.startsWith('W/') ? tag.slice(2) : tag)
