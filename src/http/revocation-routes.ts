import { authenticateClient } from '../oauth/client-auth.js'
import { OAuthError } from '../oauth/errors.js'
import { authenticateIntrospector, introspect } from '../oauth/introspection.js'
import { revokeToken } from '../oauth/revocation.js'
import type { RouteModule } from './deps.js'
import { FORM, readForm, requireForm } from './oauth-form.js'
import { oauthErrorResponse } from './openapi-fragments.js'

export const REVOCATION_PATH = '/api/oauth/revoke'
export const INTROSPECTION_PATH = '/api/oauth/introspect'

const oauthError = oauthErrorResponse()
const formBody = (extra: Record<string, unknown>) => ({
  required: true,
  content: {
    [FORM]: {
      schema: {
        type: 'object',
        required: ['token', 'client_id'],
        properties: {
          token: { type: 'string' },
          token_type_hint: { type: 'string', enum: ['access_token', 'refresh_token'] },
          client_id: {
            type: 'string',
            description: 'A client id, or a registered resource server id (rs_…)',
          },
          client_secret: { type: 'string' },
          ...extra,
        },
      },
    },
  },
})

/** Revocation (RFC 7009) and introspection (RFC 7662). */
export const revocationRoutes: RouteModule = {
  advertises: { revocation_endpoint: REVOCATION_PATH, introspection_endpoint: INTROSPECTION_PATH },
  openapi: {
    [REVOCATION_PATH]: {
      post: {
        operationId: 'revokeToken',
        summary:
          'Revoke an access or refresh token (RFC 7009); a refresh token ends its whole grant',
        tags: ['oauth'],
        requestBody: formBody({}),
        responses: {
          '200': { description: 'Revoked, or nothing to revoke (the answer is the same)' },
          '400': oauthError,
          '401': oauthError,
        },
      },
    },
    [INTROSPECTION_PATH]: {
      post: {
        operationId: 'introspectToken',
        summary:
          'Introspect a token (RFC 7662): clients about their own tokens, resource servers about tokens for them',
        tags: ['oauth'],
        requestBody: formBody({}),
        responses: {
          '200': {
            description: 'The token’s state; exactly {"active":false} for anything not active',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['active'],
                  properties: {
                    active: { type: 'boolean' },
                    scope: { type: 'string' },
                    client_id: { type: 'string' },
                    username: { type: 'string' },
                    sub: { type: 'string' },
                    aud: { type: 'string' },
                    iss: { type: 'string' },
                    exp: { type: 'integer' },
                    iat: { type: 'integer' },
                    token_type: { type: 'string' },
                  },
                },
              },
            },
          },
          '400': oauthError,
          '401': oauthError,
        },
      },
    },
  },
  register(app, deps) {
    const options = { config: { family: 'oauth' as const }, onRequest: requireForm }

    app.post(REVOCATION_PATH, options, async (request, reply) => {
      const params = readForm(request.body)
      const client = await authenticateClient(deps.clients, {
        clientId: params.client_id,
        clientSecret: params.client_secret,
      })
      if (params.token === undefined) throw new OAuthError('invalid_request', 'token is required')
      const revoked = await revokeToken(deps, client, params.token, params.token_type_hint)
      if (revoked !== 'nothing') deps.metrics.revoked('revocation_endpoint')
      request.log.info(
        { event: 'revocation', client_id: client.clientId, revoked },
        'revocation request',
      )
      return reply.header('cache-control', 'no-store').send()
    })

    // Made once: copying every dependency per request was a visible part of introspection.
    const introspectionDeps = { ...deps, issuer: deps.config.issuer }
    app.post(INTROSPECTION_PATH, options, async (request, reply) => {
      const params = readForm(request.body)
      const caller = await authenticateIntrospector(
        introspectionDeps,
        params.client_id,
        params.client_secret,
      )
      if (params.token === undefined) throw new OAuthError('invalid_request', 'token is required')
      const answer = await introspect(
        introspectionDeps,
        caller,
        params.token,
        params.token_type_hint,
      )
      return reply.header('cache-control', 'no-store').header('pragma', 'no-cache').send(answer)
    })
  },
}
