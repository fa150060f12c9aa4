import { OAuthError } from '../oauth/errors.js'
import { checkClientMetadata } from '../oauth/registration/check-client-metadata.js'
import { registerClient, registrationResponse } from '../oauth/registration/register-client.js'
import type { RouteModule } from './deps.js'
import { oauthErrorResponse } from './openapi-fragments.js'

export const REGISTRATION_PATH = '/api/oauth/register'

const oauthError = oauthErrorResponse()

/** Self-service dynamic client registration (RFC 7591) for loopback callbacks. */
export const registrationRoutes: RouteModule = {
  advertises: { registration_endpoint: REGISTRATION_PATH },
  openapi: {
    [REGISTRATION_PATH]: {
      post: {
        operationId: 'registerClient',
        summary: 'Register a client (RFC 7591); loopback redirect URIs only',
        tags: ['oauth'],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['redirect_uris'],
                properties: {
                  redirect_uris: {
                    type: 'array',
                    minItems: 1,
                    maxItems: 10,
                    items: { type: 'string' },
                  },
                  client_name: { type: 'string', maxLength: 100 },
                  token_endpoint_auth_method: {
                    type: 'string',
                    enum: ['none', 'client_secret_post'],
                  },
                  application_type: { type: 'string', enum: ['native'] },
                  grant_types: {
                    type: 'array',
                    items: { type: 'string', enum: ['authorization_code', 'refresh_token'] },
                  },
                  response_types: { type: 'array', items: { type: 'string', enum: ['code'] } },
                  scope: { type: 'string' },
                  id_token_signed_response_alg: { type: 'string', enum: ['RS256', 'ES256'] },
                },
              },
            },
          },
        },
        responses: {
          '201': {
            description:
              'The client, with its client_id (and client_secret, once, for a confidential client)',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['client_id', 'client_id_issued_at', 'redirect_uris'],
                  properties: { client_id: { type: 'string' } },
                },
              },
            },
          },
          '400': oauthError,
          '413': oauthError,
          '415': oauthError,
          '429': oauthError,
        },
      },
    },
  },
  register(app, deps) {
    app.post(REGISTRATION_PATH, { config: { family: 'oauth' } }, async (request, reply) => {
      const verdict = await deps.rateLimiter.hit(
        'register',
        request.ip,
        deps.config.registrationRateLimit,
        60_000,
        deps.clock.now(),
      )
      if (!verdict.allowed) {
        throw new OAuthError(
          'slow_down',
          'too many registrations from this address; retry later',
          429,
          {
            'retry-after': String(verdict.retryAfter),
          },
        )
      }
      const contentType = (request.headers['content-type'] ?? '')
        .split(';')[0]
        ?.trim()
        .toLowerCase()
      if (contentType !== 'application/json') {
        throw new OAuthError(
          'invalid_request',
          'the registration request must be sent as Content-Type: application/json',
          415,
        )
      }
      const metadata = checkClientMetadata(request.body, {
        allowHostnames: deps.config.allowLoopbackHostnames,
      })
      const registered = await registerClient(deps, metadata)
      request.log.info({ client_id: registered.client.clientId }, 'client registered')
      return reply
        .code(201)
        .header('cache-control', 'no-store')
        .header('pragma', 'no-cache')
        .send(registrationResponse(registered))
    })
  },
}
