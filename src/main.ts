import type { FastifyInstance } from 'fastify'
import { recheckStoredContent } from './api/stored-content-recheck.js'
import type { AppDeps } from './app-deps.js'
import type { Config } from './config.js'
import { ConfigError } from './config.js'
import type { MetricsServer } from './http/metrics-server.js'
import { createClientResolver } from './oauth/client-id-metadata/resolve-client.js'
import { createKeyRing, ensureSigningKeys } from './oauth/keys.js'
import { type Clock, systemClock } from './platform/clock.js'
import { subkey } from './platform/crypto.js'
import { loadKeyEncryptionKey } from './platform/key-encryption.js'
import { createLogger, type Logger } from './platform/logger.js'
import { createMetrics } from './platform/metrics.js'
import { pinnedFetch, type Resolver, systemResolver } from './platform/outbound/pinned-fetch.js'
import { isLoopbackAddress } from './platform/outbound/special-use-addresses.js'
import { cryptoRandom, type Random } from './platform/random.js'
import { sweepActivity } from './storage/activity.js'
import { sweepApprovals } from './storage/approvals.js'
import { createAuthorizationRequestStore } from './storage/authorization-requests.js'
import { createClientStore } from './storage/clients.js'
import { createConsentStore } from './storage/consents.js'
import { type Database, openDatabase, withExclusiveLock } from './storage/database.js'
import { createGrantStore } from './storage/grants.js'
import { migrate } from './storage/migrate.js'
import { createDatabaseRateLimiter, type RateLimiter } from './storage/rate-limits.js'
import { createRedisRateLimiter } from './storage/redis-rate-limits.js'
import { createResourceServerStore } from './storage/resource-servers.js'
import { createSchoolStore } from './storage/school.js'
import { createSessionStore } from './storage/sessions.js'
import { createSigningKeyStore } from './storage/signing-keys.js'
import { createTrustedClientDocumentStore } from './storage/trusted-client-documents.js'
import { createUserStore } from './storage/users.js'

export interface Overrides {
  readonly clock?: Clock
  readonly random?: Random
  readonly logger?: Logger
  /**
   * Outbound fetches of Client ID Metadata Documents, for tests only: a resolver standing in
   * for DNS, and the certificate authority of the test's HTTPS server. Not configurable from
   * the environment, so a deployment cannot be talked into either.
   */
  readonly outbound?: {
    readonly resolve?: Resolver
    readonly ca?: string
    readonly timeoutMs?: number
  }
}

/** A Client ID Metadata Document is read within this time, DNS included. */
const DOCUMENT_FETCH_TIMEOUT_MS = 5000
/** At most this much of a document is read (draft-ietf-oauth-client-id-metadata-document §6.6). */
const DOCUMENT_MAX_BYTES = 5 * 1024

/**
 * The loopback address Portico's own documents may be fetched from: its listen address, when
 * Portico itself is served on loopback (issuer and listener), as during development. In any
 * other deployment every loopback address is refused.
 */
export function ownLoopbackAddress(config: Config): string | undefined {
  const issuerHost = new URL(config.issuer).hostname.replace(/^\[|\]$/g, '')
  const issuerOnLoopback = issuerHost === 'localhost' || isLoopbackAddress(issuerHost)
  return issuerOnLoopback && isLoopbackAddress(config.host) ? config.host : undefined
}

/**
 * Opens the database, brings its schema up to date, creates what a first start needs
 * (signing keys), and returns the dependencies every entry point shares.
 */
export async function prepare(config: Config, overrides: Overrides = {}): Promise<AppDeps> {
  const clock = overrides.clock ?? systemClock
  const logger = overrides.logger ?? createLogger(config.logLevel)
  const encryptionKey = loadKeyEncryptionKey(config)
  const database = openDatabase(config.database, config.databasePool)
  try {
    await migrate(database, clock.now())
    const recheck = await withExclusiveLock(database, (db) => recheckStoredContent(db, clock.now()))
    if (recheck.pages.length > 0 || recheck.customCssCleared)
      logger.warn(
        { event: 'stored_content_rechecked', ...recheck },
        'content stored under older rules was checked again and changed',
      )
    const signingKeys = createSigningKeyStore(database.db)
    await withExclusiveLock(database, (db) =>
      ensureSigningKeys(createSigningKeyStore(db), encryptionKey, clock.now()),
    )
    const keys = createKeyRing({
      store: signingKeys,
      clock,
      encryptionKey,
      retentionMs: (config.lifetimes.idToken + 300) * 1000,
    })
    try {
      await keys.jwks()
    } catch {
      throw new ConfigError(
        'cannot decrypt the signing keys: the key-encryption secret is not the one they were sealed with',
      )
    }
    const clients = createClientStore(database.db, database.dataVersion)
    const rateLimiter = createRateLimiterFor(config, database, logger)
    const trustedClientDocuments = createTrustedClientDocumentStore(database.db)
    const fetchOptions = {
      resolve: overrides.outbound?.resolve ?? systemResolver,
      ca: overrides.outbound?.ca,
      ownLoopback: ownLoopbackAddress(config),
      timeoutMs: overrides.outbound?.timeoutMs ?? DOCUMENT_FETCH_TIMEOUT_MS,
      maxBytes: DOCUMENT_MAX_BYTES,
    }
    const clientResolver = createClientResolver({
      clients,
      trusted: trustedClientDocuments,
      rateLimiter,
      clock,
      fetchDocument: (url) => pinnedFetch(url, fetchOptions),
      settings: {
        ...config.clientIdMetadata,
        allowLoopbackHostnames: config.allowLoopbackHostnames,
      },
    })
    return {
      config,
      clock,
      random: overrides.random ?? cryptoRandom,
      logger,
      metrics: createMetrics({
        poolUse: database.poolUse,
        processMetrics: config.metrics !== undefined,
      }),
      database,
      clients,
      clientResolver,
      trustedClientDocuments,
      signingKeys,
      rateLimiter,
      deviceCookieKey: subkey(encryptionKey, 'portico device cookie'),
      requestStateKey: subkey(encryptionKey, 'portico mcp request state'),
      keys,
      users: createUserStore(database.db),
      sessions: createSessionStore(database.db),
      authorizationRequests: createAuthorizationRequestStore(database.db, database.dialect),
      grants: createGrantStore(database.db, database.dialect, database.dataVersion),
      consents: createConsentStore(database.db),
      resourceServers: createResourceServerStore(database.db),
      school: createSchoolStore(database.db, config.issuer),
    }
  } catch (error) {
    await database.close()
    throw error
  }
}

/** Rate-limit counters in Redis when REDIS_URL is set, in the database otherwise. */
function createRateLimiterFor(config: Config, database: Database, logger: Logger): RateLimiter {
  if (config.redisUrl === undefined) return createDatabaseRateLimiter(database.db)
  return createRedisRateLimiter({ url: config.redisUrl, issuer: config.issuer, logger })
}

/** A listening Portico. */
export interface RunningServer {
  readonly app: FastifyInstance
  readonly deps: AppDeps
  /** The address it listens on, e.g. http://127.0.0.1:3000. */
  readonly url: string
  /** Where Prometheus metrics are served, when PORTICO_METRICS_PORT is set. */
  readonly metricsUrl: string | undefined
  /** Stops accepting, waits for requests in flight, then closes the database. */
  close(): Promise<void>
}

/** Prepares everything and listens on the configured host and port. */
export async function startServer(
  config: Config,
  overrides: Overrides = {},
): Promise<RunningServer> {
  // The HTTP application loads here, not at import: the operator's commands that only need
  // `prepare` (users, clients, keys …) start without it.
  const [{ createApp }, { startMetricsServer }] = await Promise.all([
    import('./http/app.js'),
    import('./http/metrics-server.js'),
  ])
  const deps = await prepare(config, overrides)
  const app = await createApp(deps)
  // Expired codes, tokens, sessions and authorization requests go, not only rate windows.
  const sweeper = setInterval(() => {
    sweep(deps).catch((error: unknown) => deps.logger.warn({ err: error }, 'sweep failed'))
  }, 60_000)
  sweeper.unref()
  let metricsServer: MetricsServer | undefined
  const release = async () => {
    clearInterval(sweeper)
    await metricsServer?.close()
    await deps.rateLimiter.close()
    await deps.database.close()
  }
  try {
    if (!(await deps.rateLimiter.ping())) {
      throw new ConfigError('REDIS_URL: Redis does not answer')
    }
    if (config.metrics) {
      metricsServer = await startMetricsServer(
        deps.metrics,
        config.metrics.host,
        config.metrics.port,
      )
    }
    await app.listen({ host: config.host, port: config.port })
  } catch (error) {
    await release()
    throw error
  }
  const address = app.server.address()
  const port = typeof address === 'object' && address ? address.port : config.port
  const host = config.host.includes(':') ? `[${config.host}]` : config.host
  return {
    app,
    deps,
    url: `http://${host}:${port}`,
    metricsUrl: metricsServer?.url,
    async close() {
      await app.close()
      await release()
    },
  }
}

/** Deletes what has expired, so the database does not grow without bound. */
export async function sweep(deps: AppDeps): Promise<void> {
  const now = deps.clock.now()
  await deps.rateLimiter.sweep(now - 3_600_000)
  await deps.sessions.sweep(now)
  await deps.authorizationRequests.sweep(now)
  await deps.grants.sweep(now)
  await deps.clients.sweepUnused(now - deps.config.unusedClientTtl * 1000, now)
  await sweepActivity(deps.database.db, now - deps.config.activityRetentionDays * 86_400_000)
  await sweepApprovals(deps.database.db, now - deps.config.activityRetentionDays * 86_400_000, now)
}

export type { Database }
