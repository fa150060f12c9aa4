import type { FastifyInstance } from 'fastify'
import type { OpenApiPaths } from '../api/openapi-paths.js'
import type { AppDeps } from '../app-deps.js'
import type { AdvertisedEndpoint } from '../oauth/discovery.js'

/** What the app knows about all modules before it registers any of them. */
export interface AppContext {
  /** Absolute URLs of every endpoint a registered module serves and discovery may name. */
  readonly advertised: Readonly<Partial<Record<AdvertisedEndpoint, string>>>
  readonly openapi: OpenApiPaths
}

/**
 * A group of routes. Discovery and the OpenAPI document are built from these declarations,
 * so neither can name an endpoint that is not registered.
 */
export interface RouteModule {
  readonly advertises?: Readonly<Partial<Record<AdvertisedEndpoint, string>>>
  readonly openapi?: OpenApiPaths
  register(app: FastifyInstance, deps: AppDeps, context: AppContext): void
}

/** Which error format a route answers in. */
export type ErrorFamily = 'oauth' | 'problem' | 'html'

declare module 'fastify' {
  interface FastifyContextConfig {
    family?: ErrorFamily
  }
}
