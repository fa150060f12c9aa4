// TEMPORARY (issue 17, phase 1): the hand-written modules not yet declared with
// `defineEndpoint` register Fastify routes through this one adapter. Delete this file, the
// `legacy` member of ApiArea and its use in src/http/api-routes.ts once they all are.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { AppDeps } from '../app-deps.js'
import type { Caller } from './caller.js'
import type { OpenApiPaths } from './openapi-paths.js'

/** Routes registered inside the /api/v1 plugin the old way, with their OpenAPI paths. */
export interface LegacyRoutes {
  readonly paths: OpenApiPaths
  register(api: FastifyInstance, deps: AppDeps): void
}

/** The caller the /api/v1 hook identified for a request of a legacy route. */
export const legacyCallerOf = (request: FastifyRequest): Caller =>
  request.caller ?? { kind: 'anonymous' }
