import type { FastifyRequest } from 'fastify'
import { identifyCaller } from '../api/caller.js'
import type { Row } from '../api/framework/fields.js'
import { openapiPathsOf } from '../api/framework/operation.js'
import { API_OPERATION_SPECS, apiOperations } from '../api/operations.js'
import { ProblemError } from '../api/problem.js'
import type { AppDeps } from '../app-deps.js'
import type { Companion } from '../oauth/bearer.js'
import { bindOperations } from './api-operations.js'
import type { RouteModule } from './deps.js'

/**
 * The business API under /api/v1. One hook decides who is calling for every route; each
 * operation then names the scope it needs.
 */
export const apiRoutes: RouteModule = {
  openapi: openapiPathsOf(API_OPERATION_SPECS),
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
