import type { FastifyRequest } from 'fastify'
import { ACTIVITY_ROLES, activityEndpoint } from '../api/activity/activity-endpoint.js'
import { type Caller, identifyCaller } from '../api/caller.js'
import type { Row } from '../api/framework/fields.js'
import { openapiPathsOf } from '../api/framework/operation.js'
import { problemResponse } from '../api/framework/problem-response.js'
import { pathOf } from '../api/framework/resource.js'
import { API_OPERATION_SPECS, apiOperations } from '../api/operations.js'
import { ProblemError } from '../api/problem.js'
import { RESOURCES } from '../api/registry.js'
import type { AppDeps } from '../app-deps.js'
import type { Companion } from '../oauth/bearer.js'
import type { Role } from '../oauth/roles.js'
import { bindOperations } from './api-operations.js'
import type { RouteModule } from './deps.js'

/** A collection the index lists: the scopes it needs, and the roles it is for, when fewer. */
interface Collection {
  readonly name: string
  readonly path: string
  readonly read?: string
  readonly write?: string
  /** Listed only to a person of these roles (the activity record: owners and admins). */
  readonly roles?: readonly Role[]
}

/** The collections the API serves, with the scopes each needs; the index lists them. */
const COLLECTIONS: readonly Collection[] = [
  { name: 'account', path: '/api/v1/account', read: 'account:read', write: 'account:write' },
  ...RESOURCES.map((r) => ({
    name: r.collection,
    path: pathOf(r),
    read: r.scopes.read,
    write: r.scopes.write,
  })),
  {
    name: 'activity',
    path: activityEndpoint.path,
    ...(activityEndpoint.scope && { read: activityEndpoint.scope }),
    roles: ACTIVITY_ROLES,
  },
]

/** What GET /api/v1 answers (indexView below). */
const indexSchema = {
  type: 'object',
  required: ['object', 'school', 'caller', 'scopes', 'collections', 'documentation'],
  properties: {
    object: { const: 'api_index' },
    school: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
    caller: {
      type: 'object',
      required: ['kind'],
      description: 'Who is calling: anonymous, or the token’s person (team or learner) and client',
      properties: {
        kind: { enum: ['anonymous', 'team', 'learner'] },
        role: { type: 'string' },
        user_id: { type: 'string' },
        client_id: { type: 'string' },
      },
    },
    scopes: {
      type: 'array',
      items: { type: 'string' },
      description: 'The scopes the token holds and the person’s role allows',
    },
    collections: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'href', 'scopes', 'can_read', 'can_write'],
        properties: {
          name: { type: 'string' },
          href: { type: 'string', format: 'uri' },
          scopes: {
            type: 'object',
            properties: { read: { type: 'string' }, write: { type: 'string' } },
          },
          can_read: { type: 'boolean' },
          can_write: { type: 'boolean' },
        },
      },
    },
    documentation: { type: 'string', format: 'uri', description: 'This OpenAPI document' },
    resource_metadata: {
      type: 'string',
      format: 'uri',
      description: 'The protected resource metadata (RFC 9728)',
    },
  },
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
    ...openapiPathsOf(API_OPERATION_SPECS),
    '/api/v1': {
      get: {
        operationId: 'getApiIndex',
        summary: 'API index: the school, who is calling, granted scopes, and every collection',
        tags: ['api'],
        security: [{}, { oauth2: [] }],
        responses: {
          '200': {
            description: 'The index',
            content: { 'application/json': { schema: indexSchema } },
          },
          '401': problemResponse('Invalid token'),
          '429': problemResponse('Too many requests without a token from this address'),
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
        // A route whose operation reads one row first (a GET of a record) has it read with
        // the token, in one statement: one round trip instead of two on PostgreSQL.
        const { authorization } = request.headers
        const prefetch = authorization && request.routeOptions.config?.prefetch
        const companion: Companion<Row> | undefined = prefetch
          ? { read: () => prefetch(request.params as Record<string, string>) }
          : undefined
        request.caller = await identifyCaller(authorization, deps, issuer, undefined, companion)
        if (companion?.found !== undefined) request.prefetched = companion.found
        if (request.caller.kind === 'anonymous') await limitAnonymous(deps, request)
      })

      api.get('/api/v1', async (request, reply) => {
        const caller = callerOf(request)
        return reply.header('cache-control', 'no-store').send(await indexView(deps, caller))
      })

      bindOperations(api, apiOperations(deps))
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
    collections: COLLECTIONS.filter(
      (c) => !c.roles || (caller.kind === 'token' && c.roles.includes(caller.user.role)),
    ).map((c) => ({
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
