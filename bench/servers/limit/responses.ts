import type { IncomingMessage, ServerResponse } from 'node:http'
import { randomBase64url } from './random.js'
import { refusalOf } from './refusal.js'
import type { Answer } from './routes.js'

/** The responses: an answer or a refusal sent with Portico's headers. */

export const requestId = () => `req_${randomBase64url(16)}`

export const COMMON = {
  'x-content-type-options': 'nosniff',
  vary: 'Origin',
  'access-control-allow-origin': '*',
  'access-control-expose-headers':
    'WWW-Authenticate, Location, ETag, Retry-After, X-Request-Id, Mcp-Session-Id, Mcp-Protocol-Version',
}

export function send(request: IncomingMessage, response: ServerResponse, result: Answer): void {
  const headers: Record<string, string> = {
    'x-request-id': requestId(),
    ...COMMON,
    'cache-control': 'no-store',
  }
  if (result.visibility) headers['data-visibility'] = result.visibility
  if (result.etag) {
    headers.etag = result.etag
    const match = request.headers['if-none-match']
    if (match?.split(',').some((tag) => tag.trim() === result.etag)) {
      response.writeHead(304, headers)
      response.end()
      return
    }
  }
  headers['content-type'] = 'application/json; charset=utf-8'
  headers['content-length'] = String(Buffer.byteLength(result.json))
  response.writeHead(result.status, headers)
  response.end(result.json)
}

export function refuse(response: ServerResponse, error: unknown): void {
  const refusal = refusalOf(error, 'internal')
  const body = JSON.stringify({
    type: 'about:blank',
    status: refusal.status,
    code: refusal.code,
    detail: refusal.detail,
  })
  response.writeHead(refusal.status, {
    'x-request-id': requestId(),
    ...COMMON,
    'content-type': 'application/problem+json; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
  })
  response.end(body)
}
