import type { FastifyReply, FastifyRequest } from 'fastify'
import type { AppDeps } from '../app-deps.js'
import { AuthorizePageError } from '../oauth/authorize/errors.js'
import { digest } from '../platform/crypto.js'
import type { AuthorizationRequestRow } from '../storage/authorization-requests.js'

/**
 * Issue 16, "Unauthenticated writes are bounded": an authorization request from a browser
 * that is not signed in stores a pending request before anyone has proven who they are. Per
 * client address, at most PORTICO_AUTHORIZE_RATE_LIMIT of them are stored a minute, and at
 * most PORTICO_PENDING_AUTHORIZATIONS_PER_ADDRESS are pending at once (each lives 10
 * minutes); beyond either, the person sees a 429 page with Retry-After, nothing is stored.
 */
const CAP_RETRY_AFTER_SECONDS = 60

export async function storeAnonymousRequest(
  deps: AppDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  row: AuthorizationRequestRow,
): Promise<void> {
  const now = row.created_at
  const verdict = await deps.rateLimiter.hit(
    'authorize',
    request.ip,
    deps.config.authorizeRateLimit,
    60_000,
    now,
  )
  if (!verdict.allowed) throw tooMany(reply, verdict.retryAfter)
  const stored = await deps.authorizationRequests.insertCapped(
    { ...row, address_digest: digest(`address\0${request.ip}`) },
    deps.config.pendingAuthorizationsPerAddress,
  )
  if (!stored) throw tooMany(reply, CAP_RETRY_AFTER_SECONDS)
}

function tooMany(reply: FastifyReply, retryAfter: number): AuthorizePageError {
  void reply.header('retry-after', String(retryAfter))
  return new AuthorizePageError(
    'Too many requests',
    'Too many sign-in requests came from your network in a short time. Wait a minute, then go back to the application and start again.',
    429,
  )
}
