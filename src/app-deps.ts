import type { Config } from './config.js'
import type { ClientResolver } from './oauth/client-id-metadata/resolve-client.js'
import type { KeyRing } from './oauth/keys.js'
import type { Clock } from './platform/clock.js'
import type { Logger } from './platform/logger.js'
import type { Metrics } from './platform/metrics.js'
import type { Random } from './platform/random.js'
import type { AuthorizationRequestStore } from './storage/authorization-requests.js'
import type { ClientStore } from './storage/clients.js'
import type { ConsentStore } from './storage/consents.js'
import type { Database } from './storage/database.js'
import type { GrantStore } from './storage/grants.js'
import type { RateLimiter } from './storage/rate-limits.js'
import type { ResourceServerStore } from './storage/resource-servers.js'
import type { SchoolStore } from './storage/school.js'
import type { SessionStore } from './storage/sessions.js'
import type { SigningKeyStore } from './storage/signing-keys.js'
import type { TrustedClientDocumentStore } from './storage/trusted-client-documents.js'
import type { UserStore } from './storage/users.js'

/** Everything Portico is built from, made once by the composition root (`main.ts`). Every layer may
 * import this type: it names the stores and services, it does not reach them. */
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
  /**
   * HMAC key of the state an MCP question carries through the agent's client (a form asking
   * the person's yes, issue 35), the same on every instance.
   */
  readonly requestStateKey: Buffer
  readonly keys: KeyRing
  readonly users: UserStore
  readonly sessions: SessionStore
  readonly authorizationRequests: AuthorizationRequestStore
  readonly grants: GrantStore
  readonly consents: ConsentStore
  readonly resourceServers: ResourceServerStore
  readonly school: SchoolStore
}
