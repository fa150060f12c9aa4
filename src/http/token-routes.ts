import type { FastifyReply, FastifyRequest } from 'fastify'
import type { AppDeps } from '../app-deps.js'
import { ClientDocumentRefused } from '../oauth/client-id-metadata/resolve-client.js'
import { OAuthError } from '../oauth/errors.js'
import { exchangeToken, GrantRefused, type RefusalReason } from '../oauth/grants/index.js'
import type { IssuedTokens } from '../oauth/tokens/issue-tokens.js'
import type { RouteModule } from './deps.js'
import { FORM, readForm, requireForm } from './oauth-form.js'
import { oauthErrorResponse } from './openapi-fragments.js'

export const TOKEN_PATH = '/api/oauth/token'

/** The token endpoint (RFC 6749 §3.2): authorization code with PKCE, and refresh. */
export const tokenRoutes: RouteModule = {
  advertises: { token_endpoint: TOKEN_PATH },
  openapi: {
    [TOKEN_PATH]: {
      post: {
        operationId: 'requestToken',
        summary: 'Exchange an authorization code, or a refresh token, for tokens',
        tags: ['oauth'],
        requestBody: {
          required: true,
          content: {
            [FORM]: {
              schema: {
                type: 'object',
                required: ['grant_type', 'client_id'],
                properties: {
                  grant_type: { type: 'string', enum: ['authorization_code', 'refresh_token'] },
                  client_id: { type: 'string' },
                  client_secret: {
                    type: 'string',
                    description: 'Confidential clients only (client_secret_post)',
                  },
                  code: { type: 'string' },
                  redirect_uri: { type: 'string' },
                  code_verifier: { type: 'string', minLength: 43, maxLength: 128 },
                  refresh_token: { type: 'string' },
                  scope: { type: 'string', description: 'refresh_token only: a narrower scope' },
                  resource: { type: 'string', description: 'RFC 8707 resource indicator' },
                },
              },
            },
          },
        },
        responses: {
          '200': {
            description: 'Tokens (RFC 6749 §5.1)',
            headers: { 'Cache-Control': { schema: { type: 'string', const: 'no-store' } } },
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['access_token', 'token_type', 'expires_in', 'scope'],
                  properties: {
                    access_token: { type: 'string' },
                    token_type: { type: 'string', const: 'Bearer' },
                    expires_in: { type: 'integer' },
                    scope: { type: 'string' },
                    refresh_token: { type: 'string' },
                    id_token: { type: 'string', description: 'When openid was granted' },
                  },
                },
              },
            },
          },
          '400': oauthErrorResponse('OAuth error (RFC 6749 §5.2)'),
          '401': oauthErrorResponse('invalid_client: client authentication failed'),
          '413': oauthErrorResponse('The request body is too large'),
          '429': oauthErrorResponse('slow_down: too many token requests; wait Retry-After seconds'),
          '503': oauthErrorResponse('temporarily_unavailable: retry after Retry-After seconds'),
        },
      },
    },
  },
  register(app, deps) {
    app.post(
      TOKEN_PATH,
      { config: { family: 'oauth' }, onRequest: requireForm },
      async (request, reply) => {
        const now = deps.clock.now()
        const subject = tokenSubject(request)
        await limitTokenRequests(deps, subject, now)
        // The request holds one unit of the invalid_grant budget until it is known not to be
        // a guess: of a concurrent burst of guesses, at most the limit are even tried.
        let guessed = false
        try {
          return await answerTokenRequest(request, reply, () => {
            guessed = true
          })
        } finally {
          if (!guessed) await giveBackInvalidGrant(deps, subject, now, true)
        }
      },
    )

    async function answerTokenRequest(
      request: FastifyRequest,
      reply: FastifyReply,
      markGuess: () => void,
    ) {
      const params = readForm(request.body)
      let issued: IssuedTokens
      try {
        issued = await exchangeToken({ ...deps, clients: deps.clientResolver }, params)
      } catch (error) {
        if (error instanceof ClientDocumentRefused) {
          request.log.warn(
            {
              event: 'client_document_refused',
              client_id: params.client_id,
              reason: error.reason,
            },
            'client id metadata document refused',
          )
        }
        if (error instanceof GrantRefused) {
          if (isGuess(error.reason)) markGuess()
          const replay = error.reason === 'code_replayed' || error.reason === 'refresh_token_reused'
          request.log[replay ? 'warn' : 'info'](
            { client_id: params.client_id, grant_type: params.grant_type, reason: error.reason },
            replay ? 'replayed credential: grant revoked' : 'grant refused',
          )
          if (replay) deps.metrics.revoked('replay_detected')
          if (params.grant_type === 'refresh_token')
            deps.metrics.refreshed(replay ? 'replayed' : 'refused')
        }
        throw error
      }
      deps.metrics.tokensIssued(params.grant_type ?? 'unknown')
      if (params.grant_type === 'refresh_token') deps.metrics.refreshed('rotated')
      return reply
        .header('cache-control', 'no-store')
        .header('pragma', 'no-cache')
        .send(tokenResponse(issued))
    }
  },
}

/**
 * Token requests per client_id and client address per minute, counted before anything is
 * looked up, so guessing codes or refresh tokens is bounded too. The limit is generous:
 * a busy client refreshes far less often. Each request also reserves one unit of the
 * invalid_grant budget atomically; the caller gives it back unless the request was a guess.
 */
async function limitTokenRequests(deps: AppDeps, subject: string, now: number): Promise<void> {
  const [verdict, refused] = await Promise.all([
    deps.rateLimiter.hit('token', subject, deps.config.tokenRateLimit, 60_000, now),
    deps.rateLimiter.reserve(
      INVALID_GRANT_BUCKET,
      subject,
      deps.config.invalidGrantLimit,
      INVALID_GRANT_WINDOW_MS,
      now,
    ),
  ])
  if (!verdict.allowed || !refused.allowed) {
    // A refused request tried nothing: its reservation goes back.
    await giveBackInvalidGrant(deps, subject, now, refused.allowed)
    throw new OAuthError(
      'slow_down',
      verdict.allowed
        ? 'too many refused codes or refresh tokens from this client; retry later'
        : 'too many token requests from this client; retry later',
      429,
      {
        'retry-after': String(verdict.allowed ? refused.retryAfter : verdict.retryAfter),
      },
    )
  }
}

/**
 * Guesses (a code or refresh token that does not exist) per client_id and address in
 * {@link INVALID_GRANT_WINDOW_MS}: past PORTICO_INVALID_GRANT_LIMIT every token request of
 * that client from that address is answered 429 until the window ends, so guessing codes or
 * refresh tokens stays bounded far below the request rate. Real credentials that are
 * expired, spent, revoked, someone else's or of a suspended person guessed nothing and do not
 * count: a mass expiry or password reset cannot lock out an address many people share.
 */
const INVALID_GRANT_WINDOW_MS = 15 * 60_000
const INVALID_GRANT_BUCKET = 'token-invalid-grant'

/** The refusals that only a guess earns: the presented code or refresh token does not exist. */
export function isGuess(reason: RefusalReason): boolean {
  return reason === 'unknown_code' || reason === 'unknown_refresh_token'
}

/**
 * Gives back a request's unit of the invalid_grant budget: released when its reservation was
 * allowed (the database's rate limiter keeps it for the same client's next request from this
 * address, so a busy client costs no write per request for this budget; see
 * rate-limits.ts), refunded at once when it was refused.
 */
async function giveBackInvalidGrant(
  deps: AppDeps,
  subject: string,
  now: number,
  reservationAllowed: boolean,
): Promise<void> {
  await deps.rateLimiter[reservationAllowed ? 'release' : 'refund'](
    INVALID_GRANT_BUCKET,
    subject,
    INVALID_GRANT_WINDOW_MS,
    now,
  )
}

/** What the token endpoint's limits count by: the client_id as sent, and the address. */
function tokenSubject(request: FastifyRequest): string {
  const body = (request.body ?? {}) as Record<string, unknown>
  const clientId = typeof body.client_id === 'string' ? body.client_id.slice(0, 100) : ''
  return `${clientId} ${request.ip}`
}

function tokenResponse(issued: IssuedTokens): Record<string, unknown> {
  return {
    access_token: issued.accessToken,
    token_type: issued.tokenType,
    expires_in: issued.expiresIn,
    scope: issued.scope,
    ...(issued.refreshToken !== undefined && { refresh_token: issued.refreshToken }),
    ...(issued.idToken !== undefined && { id_token: issued.idToken }),
  }
}
