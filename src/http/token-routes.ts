import type { FastifyRequest } from 'fastify'
import { OAuthError } from '../oauth/errors.js'
import { exchangeToken, GrantRefused, type TokenParams } from '../oauth/grants/index.js'
import type { IssuedTokens } from '../oauth/tokens/issue-tokens.js'
import type { RouteModule } from './deps.js'

export const TOKEN_PATH = '/api/oauth/token'

const FORM = 'application/x-www-form-urlencoded'

const oauthError = (description: string) => ({
  description,
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
          '400': oauthError('OAuth error (RFC 6749 §5.2)'),
          '401': oauthError('invalid_client: client authentication failed'),
          '413': oauthError('The request body is too large'),
        },
      },
    },
  },
  register(app, deps) {
    app.post(
      TOKEN_PATH,
      { config: { family: 'oauth' }, onRequest: requireForm },
      async (request, reply) => {
        const params = readForm(request.body)
        let issued: IssuedTokens
        try {
          issued = await exchangeToken(deps, params)
        } catch (error) {
          if (error instanceof GrantRefused) {
            const replay =
              error.reason === 'code_replayed' || error.reason === 'refresh_token_reused'
            request.log[replay ? 'warn' : 'info'](
              { client_id: params.client_id, grant_type: params.grant_type, reason: error.reason },
              replay ? 'replayed credential: grant revoked' : 'grant refused',
            )
          }
          throw error
        }
        return reply
          .header('cache-control', 'no-store')
          .header('pragma', 'no-cache')
          .send(tokenResponse(issued))
      },
    )
  },
}

/** Before the body is parsed: only a form is a token request, so JSON is never read. */
async function requireForm(request: FastifyRequest): Promise<void> {
  const type = request.headers['content-type']?.split(';')[0]?.trim().toLowerCase()
  if (type !== FORM) {
    throw new OAuthError('invalid_request', `the token request must be sent as ${FORM}`)
  }
}

/** The form as parameters: a repeated one is refused, an empty one is absent (RFC 6749 §3.1, §3.2). */
function readForm(body: unknown): TokenParams {
  // No prototype: a parameter named like an Object method is just a parameter.
  const params: Record<string, string> = Object.create(null)
  for (const [name, value] of Object.entries((body ?? {}) as Record<string, unknown>)) {
    if (typeof value !== 'string') {
      const shown = /^[a-z_]{1,40}$/.test(name) ? name : 'a parameter'
      throw new OAuthError('invalid_request', `${shown} is given more than once`)
    }
    if (value !== '') params[name] = value
  }
  return params
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
