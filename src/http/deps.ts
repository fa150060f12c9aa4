import type { FastifyInstance } from 'fastify'
import type { Config } from '../config.js'
import type { ClientResolver } from '../oauth/client-id-metadata/resolve-client.js'
import type { KeyRing } from '../oauth/keys.js'
import type { Clock } from '../platform/clock.js'
import type { Logger } from '../platform/logger.js'
import type { Metrics } from '../platform/metrics.js'
import type { Random } from '../platform/random.js'
import type { AuthorizationRequestStore } from '../storage/authorization-requests.js'
import type { ClientStore } from '../storage/clients.js'
import type { ConsentStore } from '../storage/consents.js'
import type { Database } from '../storage/database.js'
import type { GrantStore } from '../storage/grants.js'
import type { RateLimiter } from '../storage/rate-limits.js'
import type { ResourceServerStore } from '../storage/resource-servers.js'
import type { SchoolStore } from '../storage/school.js'
import type { SessionStore } from '../storage/sessions.js'
import type { SigningKeyStore } from '../storage/signing-keys.js'
import type { TrustedClientDocumentStore } from '../storage/trusted-client-documents.js'
import type { UserStore } from '../storage/users.js'

/** Everything the HTTP app is built from; made once by the composition root. */
export interface AppDeps {
  readonly config: Config
  readonly clock: Clock
  readonly random: Random
  readonly logger: Logger
  readonly metrics: Metrics
  readonly database: Database
  readonly clients: ClientStore
  /**
   * Finds the client a request names: Portico's own from the database, an https client_id
   * through its Client ID Metadata Document. Use it wherever a client_id arrives in a request.
   */
  readonly clientResolver: ClientResolver
  readonly trustedClientDocuments: TrustedClientDocumentStore
  readonly signingKeys: SigningKeyStore
  readonly rateLimiter: RateLimiter
  /** HMAC key of the device cookies (sign-in throttling), the same on every instance. */
  readonly deviceCookieKey: Buffer
  readonly keys: KeyRing
  readonly users: UserStore
  readonly sessions: SessionStore
  readonly authorizationRequests: AuthorizationRequestStore
  readonly grants: GrantStore
  readonly consents: ConsentStore
  readonly resourceServers: ResourceServerStore
  readonly school: SchoolStore
}

/** Endpoints that discovery may advertise, by their RFC 8414 / OIDC metadata name. */
export type AdvertisedEndpoint =
  | 'registration_endpoint'
  | 'authorization_endpoint'
  | 'token_endpoint'
  | 'userinfo_endpoint'
  | 'revocation_endpoint'
  | 'introspection_endpoint'
  | 'jwks_uri'

/** An OpenAPI 3.1 path item, kept loose: the document is validated as a whole in tests. */
export type OpenApiPaths = Record<string, Record<string, unknown>>

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
