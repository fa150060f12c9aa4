import type { FastifyInstance } from 'fastify'
import type { AppDeps } from '../app-deps.js'
import type { ResourceDefinition } from './framework/resource.js'
import type { OpenApiPaths } from './openapi-paths.js'

/**
 * One part of the business API: the resources it declares, and the hand-written routes
 * beyond them (sub-resources, uploads, reports) with their OpenAPI paths.
 */
export interface ApiArea {
  readonly resources: readonly ResourceDefinition[]
  readonly paths?: OpenApiPaths
  /** Registers the hand-written routes inside the /api/v1 plugin (caller already identified). */
  register?(api: FastifyInstance, deps: AppDeps): void
}
