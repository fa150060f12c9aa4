import { createHash } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { randomBase64url } from './random.js'
import { Refusal, refusalOf } from './refusal.js'
import { COMMON, requestId } from './responses.js'
import type { Store } from './store.js'

/** The refresh-token grant: the token endpoint's form, checks, new tokens and rotation. */

export const TOKEN_PATH = '/api/oauth/token'
/** Portico's default lifetimes (src/config.ts), which the bench leaves as they are. */
const ACCESS_TOKEN_MS = 3600 * 1000
const REFRESH_TOKEN_MS = 30 * 86400 * 1000
const GRANT_MAXIMUM_MS = 90 * 86400 * 1000
/** The token endpoint's body limit (Portico's BODY_LIMIT). */
const FORM_LIMIT = 64 * 1024

function readForm(request: IncomingMessage): Promise<URLSearchParams> {
  return new Promise((resolve, reject) => {
    if (!request.headers['content-type']?.startsWith('application/x-www-form-urlencoded')) {
      request.resume()
      reject(new Refusal(400, 'invalid_request', 'the body must be a form'))
      return
    }
    const chunks: Buffer[] = []
    let size = 0
    request.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size <= FORM_LIMIT) chunks.push(chunk)
    })
    request.on('end', () => {
      if (size > FORM_LIMIT) reject(new Refusal(413, 'invalid_request', 'too large'))
      else resolve(new URLSearchParams(Buffer.concat(chunks).toString('utf8')))
    })
    request.on('error', reject)
  })
}

const REFRESH_REFUSED = 'the refresh token is invalid, expired, revoked or already used'

/** A 256-bit token as Portico cuts it: prefix, underscore, 43 base64url characters. */
const newToken = (prefix: string) => `${prefix}_${randomBase64url(32)}`

const sha256 = (text: string) => createHash('sha256').update(text).digest('base64url')

export async function refresh(store: Store, request: IncomingMessage): Promise<string> {
  const form = await readForm(request)
  if (form.get('grant_type') !== 'refresh_token')
    throw new Refusal(400, 'unsupported_grant_type', 'refresh_token only')
  const clientId = form.get('client_id')
  const presented = form.get('refresh_token')
  if (!clientId) throw new Refusal(401, 'invalid_client', 'client_id is missing')
  if (!presented) throw new Refusal(400, 'invalid_request', 'refresh_token is missing')
  const now = Date.now()
  const accessToken = newToken('pat')
  const refreshToken = newToken('prt')
  // The checks and the rotation in one step (store.ts): one statement on PostgreSQL.
  const found = await store.refresh({
    now,
    rotates: sha256(presented),
    clientId,
    accessDigest: sha256(accessToken),
    accessExpires: now + ACCESS_TOKEN_MS,
    refreshDigest: sha256(refreshToken),
    refreshLifetimeEnd: now + REFRESH_TOKEN_MS,
    grantMaximumMs: GRANT_MAXIMUM_MS,
  })
  // Only public clients are served here (the bench's is one).
  if (found.method !== 'none')
    throw new Refusal(401, 'invalid_client', 'client authentication failed')
  if (!found.grantTypes.includes('refresh_token'))
    throw new Refusal(400, 'unauthorized_client', 'the client may not refresh')
  const scope = found.scope
  if (scope === undefined) throw new Refusal(400, 'invalid_grant', REFRESH_REFUSED)
  return JSON.stringify({
    access_token: accessToken,
    token_type: 'Bearer',
    expires_in: ACCESS_TOKEN_MS / 1000,
    scope,
    refresh_token: refreshToken,
  })
}

export function sendToken(response: ServerResponse, status: number, body: string): void {
  response.writeHead(status, {
    'x-request-id': requestId(),
    ...COMMON,
    'cache-control': 'no-store',
    pragma: 'no-cache',
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
  })
  response.end(body)
}

/** A refusal as the token endpoint words it (RFC 6749 §5.2): `error`, `error_description`. */
export function refuseToken(response: ServerResponse, error: unknown): void {
  const refusal = refusalOf(error, 'server_error')
  sendToken(
    response,
    refusal.status,
    JSON.stringify({ error: refusal.code, error_description: refusal.detail }),
  )
}
