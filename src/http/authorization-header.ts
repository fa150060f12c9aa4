import type { FastifyRequest } from 'fastify'
import { ProblemError } from '../api/problem.js'
import { bearerChallenge } from '../oauth/bearer.js'
import { OAuthError } from '../oauth/errors.js'
import { USERINFO_PATH } from './userinfo-routes.js'

const REPEATED = 'the Authorization header was sent more than once; send exactly one'

/**
 * Whether a request carries more than one `Authorization` field. Node keeps only the first
 * in `headers` and drops the rest, so without this check a second credential would be
 * silently ignored, and a proxy that read the last one would disagree with Portico about
 * who is calling. The field is a singleton (RFC 9110 §5.3, §11.6.2).
 */
export function hasRepeatedAuthorization(rawHeaders: readonly string[]): boolean {
  let seen = false
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]
    if (name?.length === 13 && name.toLowerCase() === 'authorization') {
      if (seen) return true
      seen = true
    }
  }
  return false
}

/**
 * The answer to a repeated `Authorization` header: 400 `invalid_request` (RFC 6750 §3.1:
 * a malformed request, whatever the token) in the route's own format. OAuth endpoints
 * answer OAuth JSON (RFC 6749 §5.2); the protected resources (the API, userinfo) add a
 * `WWW-Authenticate: Bearer error="invalid_request"` challenge (RFC 6750 §3); pages show
 * the error page.
 */
export function repeatedAuthorizationError(request: FastifyRequest, issuer: string): Error {
  const family = request.routeOptions.config?.family ?? 'problem'
  const challenge = {
    'www-authenticate': bearerChallenge(issuer, {
      error: 'invalid_request',
      description: REPEATED,
    }),
  }
  if (family === 'problem') {
    return new ProblemError(
      400,
      { code: 'invalid_request', error: 'invalid_request', title: 'Bad Request', detail: REPEATED },
      challenge,
    )
  }
  const isResource = family === 'oauth' && request.routeOptions.url === USERINFO_PATH
  return new OAuthError('invalid_request', REPEATED, 400, isResource ? challenge : {})
}
