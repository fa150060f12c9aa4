import type { FastifyRequest } from 'fastify'
import { ClientDocumentRefused } from '../oauth/client-id-metadata/resolve-client.js'
import { OAuthError } from '../oauth/errors.js'
import { exchangeToken, GrantRefused } from '../oauth/grants/index.js'
import type { IssuedTokens } from '../oauth/tokens/issue-tokens.js'
import type { AppDeps, RouteModule } from './deps.js'
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
        await limitTokenRequests(deps, request)
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
            const replay =
              error.reason === 'code_replayed' || error.reason === 'refresh_token_reused'
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
      },
    )
  },
}

/**
 * Token requests per client_id and client address per minute, counted before anything is
 * looked up, so guessing codes or refresh tokens is bounded too. The limit is generous:
 * a busy client refreshes far less often.
 */
async function limitTokenRequests(deps: AppDeps, request: FastifyRequest): Promise<void> {
  const body = (request.body ?? {}) as Record<string, unknown>
  const clientId = typeof body.client_id === 'string' ? body.client_id.slice(0, 100) : ''
  const verdict = await deps.rateLimiter.hit(
    'token',
    `${clientId} ${request.ip}`,
    deps.config.tokenRateLimit,
    60_000,
    deps.clock.now(),
  )
  if (!verdict.allowed) {
    throw new OAuthError(
      'slow_down',
      'too many token requests from this client; retry later',
      429,
      {
        'retry-after': String(verdict.retryAfter),
      },
    )
  }
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
