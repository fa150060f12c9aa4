import type { FastifyReply, FastifyRequest } from 'fastify'
import type { AppDeps } from '../app-deps.js'
import { bearerChallenge, checkBearer } from '../oauth/bearer.js'
import { OAuthError } from '../oauth/errors.js'
import { USERINFO_SCOPE, userinfoClaims } from '../oauth/userinfo.js'
import type { RouteModule } from './deps.js'

export const USERINFO_PATH = '/api/oauth/userinfo'

const bearerError = (description: string) => ({
  description,
  headers: { 'WWW-Authenticate': { schema: { type: 'string' } } },
  content: {
    'application/json': {
      schema: {
        type: 'object',
        required: ['error'],
        properties: { error: { type: 'string' }, error_description: { type: 'string' } },
      },
    },
  },
})

const operation = (operationId: string) => ({
  operationId,
  summary: 'Claims about the signed-in person (OpenID Connect Core §5.3)',
  tags: ['oauth'],
  security: [{ oauth2: [USERINFO_SCOPE] }],
  responses: {
    '200': {
      description:
        'sub always; name, picture, updated_at with profile; email, email_verified with email',
      content: {
        'application/json': {
          schema: {
            type: 'object',
            required: ['sub'],
            properties: {
              sub: { type: 'string' },
              name: { type: 'string' },
              picture: { type: 'string' },
              updated_at: { type: 'integer' },
              email: { type: 'string' },
              email_verified: { type: 'boolean' },
            },
          },
        },
      },
    },
    '401': bearerError('No access token, or an invalid, expired or revoked one (invalid_token)'),
    '403': bearerError('The access token lacks the openid scope (insufficient_scope)'),
  },
})

/** Userinfo (OIDC Core §5.3), by GET or POST, for a bearer token of Portico's own API. */
export const userinfoRoutes: RouteModule = {
  advertises: { userinfo_endpoint: USERINFO_PATH },
  openapi: {
    [USERINFO_PATH]: { get: operation('getUserinfo'), post: operation('postUserinfo') },
  },
  register(app, deps) {
    const handler = (request: FastifyRequest, reply: FastifyReply) =>
      answerUserinfo(deps, request, reply)
    app.get(USERINFO_PATH, { config: { family: 'oauth' } }, handler)
    app.post(USERINFO_PATH, { config: { family: 'oauth' } }, handler)
  },
}

async function answerUserinfo(
  deps: AppDeps,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const { issuer } = deps.config
  const check = await checkBearer(deps, request.headers.authorization, issuer)
  if (check.status === 'anonymous') {
    // RFC 6750 §3.1: no credentials, so the challenge carries no error code.
    throw new OAuthError(
      'invalid_token',
      'an access token is required: send Authorization: Bearer <access token>',
      401,
      { 'www-authenticate': bearerChallenge(issuer) },
    )
  }
  if (check.status === 'invalid') {
    throw new OAuthError('invalid_token', check.description, 401, {
      'www-authenticate': bearerChallenge(issuer, {
        error: 'invalid_token',
        description: check.description,
      }),
    })
  }
  if (!check.scopes.has(USERINFO_SCOPE)) {
    const description = 'userinfo needs a token granted the openid scope'
    throw new OAuthError('insufficient_scope', description, 403, {
      'www-authenticate': bearerChallenge(issuer, {
        error: 'insufficient_scope',
        description,
        scope: USERINFO_SCOPE,
      }),
    })
  }
  return reply
    .header('cache-control', 'no-store')
    .header('pragma', 'no-cache')
    .send(userinfoClaims(check.live.user, check.scopes))
}
