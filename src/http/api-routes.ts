import type { FastifyRequest } from 'fastify'
import { accountView, checkAccountPatch } from '../api/account.js'
import { type Caller, identifyCaller, requireScope } from '../api/caller.js'
import { checkIfMatch, etagOf, requireJsonContent, requireObject } from '../api/conventions.js'
import { resourcePaths } from '../api/framework/openapi.js'
import { pathOf } from '../api/framework/resource.js'
import { registerResource } from '../api/framework/routes.js'
import { ProblemError } from '../api/problem.js'
import { curriculumPaths, registerCurriculumRoutes } from '../api/resources/curriculum-routes.js'
import { AREAS, RESOURCES } from '../api/resources/index.js'
import { progressPaths, registerProgressRoutes } from '../api/resources/progress-routes.js'
import type { AppDeps } from '../app-deps.js'
import type { RouteModule } from './deps.js'

/** The collections the API serves, with the scopes each needs; the index lists them. */
const COLLECTIONS: ReadonlyArray<{ name: string; path: string; read?: string; write?: string }> = [
  { name: 'account', path: '/api/v1/account', read: 'account:read', write: 'account:write' },
  ...RESOURCES.map((r) => ({
    name: r.collection,
    path: pathOf(r),
    read: r.scopes.read,
    write: r.scopes.write,
  })),
]

const problemResponse = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
})
const accountSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    object: { const: 'account' },
    email: { type: 'string' },
    email_verified: { type: 'boolean' },
    name: { type: 'string' },
    avatar_url: { type: ['string', 'null'] },
    locale: { type: ['string', 'null'] },
    timezone: { type: ['string', 'null'] },
    bio: { type: ['string', 'null'] },
    kind: { enum: ['staff', 'learner'] },
    role: { type: 'string' },
    notification_preferences: { type: 'object', additionalProperties: { type: 'boolean' } },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
  },
}

declare module 'fastify' {
  interface FastifyRequest {
    caller?: Caller
  }
}

function callerOf(request: FastifyRequest): Caller {
  return request.caller ?? { kind: 'anonymous' }
}

/**
 * The business API under /api/v1. One hook decides who is calling for every route; each
 * operation then names the scope it needs.
 */
export const apiRoutes: RouteModule = {
  openapi: {
    ...Object.assign({}, ...RESOURCES.map(resourcePaths)),
    ...curriculumPaths,
    ...progressPaths,
    ...Object.assign({}, ...AREAS.map((area) => area.paths ?? {})),
    '/api/v1': {
      get: {
        operationId: 'getApiIndex',
        summary: 'API index: the school, who is calling, granted scopes, and every collection',
        tags: ['api'],
        security: [{}, { oauth2: [] }],
        responses: {
          '200': {
            description: 'The index',
            content: { 'application/json': { schema: { type: 'object' } } },
          },
          '401': problemResponse('Invalid token'),
          '429': problemResponse('Too many requests without a token from this address'),
        },
      },
    },
    '/api/v1/account': {
      get: {
        operationId: 'getAccount',
        summary: 'The signed-in person’s own profile',
        tags: ['account'],
        security: [{ oauth2: ['account:read'] }],
        responses: {
          '200': {
            description: 'The account',
            headers: { ETag: { schema: { type: 'string' } } },
            content: { 'application/json': { schema: accountSchema } },
          },
          '401': problemResponse('No token, or an invalid one'),
          '403': problemResponse('The token lacks account:read'),
        },
      },
      patch: {
        operationId: 'updateAccount',
        summary: 'Update one’s own profile (JSON merge; null clears a field)',
        tags: ['account'],
        security: [{ oauth2: ['account:write'] }],
        parameters: [
          { name: 'If-Match', in: 'header', required: false, schema: { type: 'string' } },
        ],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                additionalProperties: false,
                properties: {
                  name: { type: 'string', maxLength: 100 },
                  avatar_url: { type: ['string', 'null'] },
                  locale: { type: ['string', 'null'] },
                  timezone: { type: ['string', 'null'] },
                  bio: { type: ['string', 'null'], maxLength: 2000 },
                  notification_preferences: {
                    type: 'object',
                    additionalProperties: { type: 'boolean' },
                  },
                },
              },
            },
          },
        },
        responses: {
          '200': {
            description: 'The updated account',
            content: { 'application/json': { schema: accountSchema } },
          },
          '400': problemResponse('Malformed body'),
          '401': problemResponse('No token, or an invalid one'),
          '403': problemResponse('The token lacks account:write'),
          '412': problemResponse('If-Match does not match'),
          '415': problemResponse('The body is not application/json'),
          '422': problemResponse('Validation failed; errors lists each field'),
        },
      },
    },
  },
  register(app, deps) {
    const { issuer } = deps.config
    void app.register(async (api) => {
      api.addHook('onRequest', async (request) => {
        // No record holds U+0000 and PostgreSQL cannot even compare with it: refused up front,
        // for every path and query parameter of every route.
        if (request.url.includes('%00'))
          throw new ProblemError(400, {
            code: 'invalid_request',
            title: 'Bad Request',
            detail: 'the URL holds an encoded U+0000 (%00), which no parameter may contain',
          })
        request.caller = await identifyCaller(request.headers.authorization, deps, issuer)
        if (request.caller.kind === 'anonymous') await limitAnonymous(deps, request)
      })

      api.get('/api/v1', async (request, reply) => {
        const caller = callerOf(request)
        return reply.header('cache-control', 'no-store').send(await indexView(deps, caller))
      })

      api.get('/api/v1/account', async (request, reply) => {
        const caller = requireScope(callerOf(request), 'account:read', issuer)
        const body = accountView(caller.user)
        return reply.header('cache-control', 'no-store').header('etag', etagOf(body)).send(body)
      })

      api.patch('/api/v1/account', async (request, reply) => {
        const caller = requireScope(callerOf(request), 'account:write', issuer)
        requireJsonContent(request.headers['content-type'])
        checkIfMatch(request.headers['if-match'], etagOf(accountView(caller.user)))
        const changes = checkAccountPatch(requireObject(request.body))
        const merged = changes.notificationPreferences
          ? {
              ...changes,
              notificationPreferences: {
                ...caller.user.notificationPreferences,
                ...changes.notificationPreferences,
              },
            }
          : changes
        const updated = await deps.users.updateProfile(caller.user.id, merged, deps.clock.now())
        if (!updated)
          throw new ProblemError(404, {
            code: 'not_found',
            title: 'Not Found',
            detail: 'the account no longer exists',
          })
        const body = accountView(updated)
        return reply.header('cache-control', 'no-store').header('etag', etagOf(body)).send(body)
      })

      for (const resource of RESOURCES) registerResource(api, deps, resource)
      registerCurriculumRoutes(api, deps)
      registerProgressRoutes(api, deps)
      for (const area of AREAS) area.register?.(api, deps)
    })
  },
}

/** Anonymous requests per client address per minute; callers with a token are not counted. */
async function limitAnonymous(deps: AppDeps, request: FastifyRequest): Promise<void> {
  const verdict = await deps.rateLimiter.hit(
    'api-anonymous',
    request.ip,
    deps.config.anonymousApiRateLimit,
    60_000,
    deps.clock.now(),
  )
  if (!verdict.allowed) {
    throw new ProblemError(
      429,
      {
        code: 'rate_limited',
        title: 'Too Many Requests',
        detail: 'too many requests without an access token from this address; retry later',
      },
      { 'retry-after': String(verdict.retryAfter) },
    )
  }
}

async function indexView(deps: AppDeps, caller: Caller): Promise<Record<string, unknown>> {
  const granted = caller.kind === 'token' ? caller.scopes : new Set<string>()
  return {
    object: 'api_index',
    school: { name: await deps.school.name() },
    caller:
      caller.kind === 'anonymous'
        ? { kind: 'anonymous' }
        : {
            kind: caller.user.role === 'student' ? 'learner' : 'team',
            role: caller.user.role,
            user_id: caller.user.id,
            client_id: caller.clientId,
          },
    scopes: [...granted],
    collections: COLLECTIONS.map((c) => ({
      name: c.name,
      href: `${deps.config.issuer}${c.path}`,
      scopes: { ...(c.read && { read: c.read }), ...(c.write && { write: c.write }) },
      can_read: c.read !== undefined && granted.has(c.read),
      can_write: c.write !== undefined && granted.has(c.write),
    })),
    documentation: `${deps.config.issuer}/openapi.json`,
    resource_metadata: `${deps.config.issuer}/.well-known/oauth-protected-resource`,
  }
}
