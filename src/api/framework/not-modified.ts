/**
 * How a GET that answers an ETag is documented as conditional (RFC 9110 §13.1.2): the HTTP
 * binding answers 304 when If-None-Match holds the current ETag (src/http/conditional-get.ts).
 */
export const IF_NONE_MATCH_PARAMETER = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  schema: { type: 'string' },
  description: 'The ETag of the copy held: 304 without a body while it is current',
} as const

/** The 304 answer: no body, the same ETag and cache headers (RFC 9110 §15.4.5). */
export const NOT_MODIFIED_RESPONSE = {
  description: 'Not Modified: If-None-Match holds the current ETag (no body)',
  headers: { ETag: { schema: { type: 'string' } } },
} as const
