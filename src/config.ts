import path from 'node:path'
import { isEmailAddress } from './platform/email-address.js'

/** Everything Portico reads from its environment, parsed once and frozen. */
export interface Config {
  /** Public base URL; the exact issuer string, never derived from a request. */
  readonly issuer: string
  readonly host: string
  readonly port: number
  readonly database: DatabaseConfig
  readonly logLevel: LogLevel
  /** Secret that encrypts private signing keys at rest; undefined: a generated file beside SQLite. */
  readonly keyEncryptionSecret: string | undefined
  /** RFC 8252 §7.3: also accept `localhost` and `[::1]` loopback redirect URIs at registration. */
  readonly allowLoopbackHostnames: boolean
  /** Registrations per client address per minute. */
  readonly registrationRateLimit: number
  /** Token requests per client_id and client address per minute. */
  readonly tokenRateLimit: number
  /** Requests to /api/v1 without a token per client address per minute. */
  readonly anonymousApiRateLimit: number
  /** Form submissions (POST /api/v1/forms/{id}/submissions) per client address per minute. */
  readonly formSubmissionRateLimit: number
  /** Authorization requests stored for browsers not signed in, per client address per minute. */
  readonly authorizeRateLimit: number
  /** Pending authorization requests of browsers not signed in, per client address at once. */
  readonly pendingAuthorizationsPerAddress: number
  /** `invalid_grant` answers per client_id and client address in 15 minutes, then 429. */
  readonly invalidGrantLimit: number
  /** Seconds after which a self-registered client that never completed an authorization is deleted. */
  readonly unusedClientTtl: number
  /** Days the activity record (what each app changed) is kept; the sweeper trims older changes. */
  readonly activityRetentionDays: number
  /**
   * Whether writes made with an access token wait for a yes where their confirmation says so
   * (issue 35). Off: no call waits, whatever the policy (test environments, bulk imports).
   */
  readonly confirmations: boolean
  /** Where rate-limit counters live when not in the database: a `redis://` URL shared by every instance. */
  readonly redisUrl: string | undefined
  /** PostgreSQL pool bounds; SQLite has one connection and a 5 s busy timeout. */
  readonly databasePool: DatabasePool
  /** Where Prometheus metrics are served, on a listener of their own; undefined: nowhere. */
  readonly metrics: { readonly host: string; readonly port: number } | undefined
  /** Seconds in-flight requests get to finish after SIGTERM before their connections are cut. */
  readonly shutdownGrace: number
  /** Seconds a client has to send a whole request, headers and body; a slower one is cut off. */
  readonly requestTimeout: number
  /**
   * Whose `X-Forwarded-*` to believe: nobody (false), every hop (true), the nearest `n`
   * hops, or proxies at these addresses and CIDR ranges.
   */
  readonly trustProxy: boolean | number | readonly string[]
  readonly lifetimes: Lifetimes
  /** E-mail of the `owner` account created on first start (lower-cased). */
  readonly ownerEmail: string
  /** Uploaded files on SQLite: this folder (mode 0700); undefined: `files/` beside the database. */
  readonly filesDir: string | undefined
  /** The largest upload accepted, in bytes, whatever its purpose (at most 25 MB). */
  readonly uploadMaxBytes: number
  /** Client ID Metadata Documents: https client ids fetched, with per-minute fetch budgets. */
  readonly clientIdMetadata: ClientIdMetadataConfig
}

export interface ClientIdMetadataConfig {
  readonly enabled: boolean
  /** Document fetches per minute, all hosts together. */
  readonly fetchRateLimit: number
  /** Document fetches per minute to any one host. */
  readonly hostFetchRateLimit: number
}

export type DatabaseConfig =
  | { readonly dialect: 'sqlite'; readonly file: string }
  | { readonly dialect: 'postgres'; readonly url: string }

export interface DatabasePool {
  readonly size: number
  /**
   * Bound on every statement (server-side `statement_timeout`, and on the client for a
   * silent network); waiting for a connection is bounded by half of it.
   */
  readonly timeoutMs: number
  /**
   * SQLite's page cache, in MiB, of the connection that serves requests: pages read stay
   * there until it is full. Memory the process holds grows up to it as the database grows.
   */
  readonly sqliteCacheMib: number
}

/** Lifetimes in seconds. */
export interface Lifetimes {
  readonly authorizationCode: number
  readonly accessToken: number
  /** Each refresh token's own lifetime, renewed at every rotation up to `grantMaximum`. */
  readonly refreshToken: number
  /**
   * The absolute lifetime of a grant, from the approval: no refresh token outlives it and no
   * refresh succeeds after it, however often the grant was refreshed.
   */
  readonly grantMaximum: number
  readonly idToken: number
  readonly session: number
  /** How long a held call's approval waits for a yes, and then to be used (issue 35). */
  readonly approval: number
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const
export type LogLevel = (typeof LOG_LEVELS)[number]

/** A configuration value that cannot be used; its message is the one line printed at start-up. */
export class ConfigError extends Error {
  override name = 'ConfigError'
}

type Source = Readonly<Record<string, string | undefined>>

/**
 * Parses configuration from environment variables, with flags of the same meaning taking
 * precedence (`--port 4000` over `PORT`).
 *
 * @example parseConfig({ PORT: '3977', DATABASE_URL: 'sqlite::memory:' }) // issuer http://127.0.0.1:3977
 */
export function parseConfig(env: Source, flags: Source = {}): Config {
  const get = (name: string, flag?: string): string | undefined => {
    const value = (flag ? flags[flag] : undefined) ?? env[name]
    return value === undefined || value === '' ? undefined : value
  }
  const host = get('HOST', 'host') ?? '127.0.0.1'
  /** A setting read from the environment (or its fallback), as a bounded integer. */
  const integer = (name: string, fallback: string, min: number, max: number): number =>
    parseInteger(name, get(name) ?? fallback, min, max)
  /** A setting read from the environment (or its fallback), as a boolean. */
  const boolean = (name: string, fallback: string): boolean =>
    parseBoolean(name, get(name) ?? fallback)
  const port = parseInteger('PORT', get('PORT', 'port') ?? '3000', 0, 65535)
  const configuredIssuer = get('PORTICO_ISSUER', 'issuer')
  return Object.freeze({
    issuer: configuredIssuer ? parseIssuer(configuredIssuer) : defaultIssuer(host, port),
    host,
    port,
    database: parseDatabaseUrl(get('DATABASE_URL', 'database-url') ?? 'sqlite:./data/portico.db'),
    logLevel: parseLogLevel(get('LOG_LEVEL', 'log-level') ?? 'info'),
    keyEncryptionSecret: parseSecret(get('PORTICO_KEY_ENCRYPTION_SECRET')),
    allowLoopbackHostnames: boolean('PORTICO_ALLOW_LOOPBACK_HOSTNAMES', 'false'),
    registrationRateLimit: integer('PORTICO_REGISTRATION_RATE_LIMIT', '30', 1, 1_000_000),
    tokenRateLimit: integer('PORTICO_TOKEN_RATE_LIMIT', '300', 1, 1_000_000),
    anonymousApiRateLimit: integer('PORTICO_ANONYMOUS_API_RATE_LIMIT', '60', 1, 1_000_000),
    formSubmissionRateLimit: integer('PORTICO_FORM_SUBMISSION_RATE_LIMIT', '10', 1, 1_000_000),
    authorizeRateLimit: integer('PORTICO_AUTHORIZE_RATE_LIMIT', '60', 1, 1_000_000),
    pendingAuthorizationsPerAddress: integer(
      'PORTICO_PENDING_AUTHORIZATIONS_PER_ADDRESS',
      '300',
      1,
      1_000_000,
    ),
    invalidGrantLimit: integer('PORTICO_INVALID_GRANT_LIMIT', '20', 1, 1_000_000),
    unusedClientTtl: parseSeconds(
      'PORTICO_UNUSED_CLIENT_TTL',
      get('PORTICO_UNUSED_CLIENT_TTL'),
      7 * 86400,
    ),
    activityRetentionDays: integer('PORTICO_ACTIVITY_RETENTION_DAYS', '90', 1, 36_500),
    confirmations: parseSwitch('PORTICO_CONFIRMATIONS', get('PORTICO_CONFIRMATIONS') ?? 'on'),
    redisUrl: parseRedisUrl(get('REDIS_URL')),
    databasePool: Object.freeze({
      size: integer('PORTICO_DATABASE_POOL_SIZE', '10', 1, 1000),
      timeoutMs: integer('PORTICO_DATABASE_TIMEOUT', '10', 1, 600) * 1000,
      sqliteCacheMib: integer('PORTICO_SQLITE_CACHE_MIB', '16', 1, 65_536),
    }),
    metrics: parseMetrics(get('PORTICO_METRICS_PORT'), get('PORTICO_METRICS_HOST')),
    shutdownGrace: integer('PORTICO_SHUTDOWN_GRACE', '10', 1, 3600),
    requestTimeout: integer('PORTICO_REQUEST_TIMEOUT', '30', 1, 600),
    trustProxy: parseTrustProxy(get('PORTICO_TRUST_PROXY') ?? 'false'),
    lifetimes: Object.freeze({
      authorizationCode: 60,
      accessToken: parseSeconds('PORTICO_ACCESS_TOKEN_TTL', get('PORTICO_ACCESS_TOKEN_TTL'), 3600),
      refreshToken: parseSeconds(
        'PORTICO_REFRESH_TOKEN_TTL',
        get('PORTICO_REFRESH_TOKEN_TTL'),
        30 * 86400,
      ),
      grantMaximum: parseSeconds(
        'PORTICO_REFRESH_TOKEN_ABSOLUTE_TTL',
        get('PORTICO_REFRESH_TOKEN_ABSOLUTE_TTL'),
        90 * 86400,
      ),
      idToken: parseSeconds('PORTICO_ID_TOKEN_TTL', get('PORTICO_ID_TOKEN_TTL'), 3600),
      session: parseSeconds('PORTICO_SESSION_TTL', get('PORTICO_SESSION_TTL'), 12 * 3600),
      approval: parseSeconds('PORTICO_APPROVAL_TTL', get('PORTICO_APPROVAL_TTL'), 15 * 60),
    }),
    ownerEmail: parseEmail(
      'PORTICO_OWNER_EMAIL',
      get('PORTICO_OWNER_EMAIL') ?? 'owner@school.invalid',
    ),
    filesDir: ((dir) => (dir === undefined ? undefined : path.resolve(dir)))(
      get('PORTICO_FILES_DIR'),
    ),
    uploadMaxBytes: integer(
      'PORTICO_UPLOAD_MAX_BYTES',
      String(25 * 1024 * 1024),
      1024,
      25 * 1024 * 1024,
    ),
    clientIdMetadata: Object.freeze({
      enabled: boolean('PORTICO_CLIENT_ID_METADATA_DOCUMENTS', 'true'),
      fetchRateLimit: integer('PORTICO_CLIENT_DOCUMENT_FETCH_RATE_LIMIT', '120', 1, 100_000),
      hostFetchRateLimit: integer(
        'PORTICO_CLIENT_DOCUMENT_HOST_FETCH_RATE_LIMIT',
        '20',
        1,
        100_000,
      ),
    }),
  })
}

function parseIssuer(raw: string): string {
  const value = raw.endsWith('/') ? raw.slice(0, -1) : raw
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new ConfigError(`PORTICO_ISSUER must be an absolute URL, got "${raw}"`)
  }
  // RFC 8414 §2: the issuer is an https URL with no query or fragment.
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ConfigError('PORTICO_ISSUER must use https (or http on a loopback host)')
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new ConfigError('PORTICO_ISSUER may use http only on a loopback host; use https')
  }
  if (url.search || url.hash || value.includes('?') || value.includes('#')) {
    throw new ConfigError('PORTICO_ISSUER must not carry a query or a fragment')
  }
  if (url.username || url.password) {
    throw new ConfigError('PORTICO_ISSUER must not carry user information')
  }
  if (url.href.replace(/\/$/, '') !== value) {
    throw new ConfigError(
      `PORTICO_ISSUER must be written in canonical form, e.g. "${url.href.replace(/\/$/, '')}"`,
    )
  }
  return value
}

/**
 * Without PORTICO_ISSUER, the issuer is the loopback address Portico listens on, so that
 * every URL it prints and advertises reaches it. Any other address is reached through a
 * name Portico cannot know: that needs PORTICO_ISSUER.
 */
function defaultIssuer(host: string, port: number): string {
  const hostname = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host
  if (!isLoopbackHost(hostname)) {
    throw new ConfigError(
      `HOST ${host} is not a loopback address: set PORTICO_ISSUER to the public https URL clients reach Portico at`,
    )
  }
  if (port === 0) {
    throw new ConfigError(
      'PORT=0 lets the system pick the port, so the issuer cannot be derived from it: set PORTICO_ISSUER or a fixed PORT',
    )
  }
  return parseIssuer(`http://${hostname}:${port}`)
}

function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(hostname)
}

function parseDatabaseUrl(raw: string): DatabaseConfig {
  if (raw.startsWith('sqlite:')) {
    const file = raw.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '')
    if (!file)
      throw new ConfigError(
        'DATABASE_URL "sqlite:" needs a file path, e.g. sqlite:./data/portico.db',
      )
    return { dialect: 'sqlite', file: file === ':memory:' ? file : path.resolve(file) }
  }
  if (raw.startsWith('postgres://') || raw.startsWith('postgresql://')) {
    try {
      new URL(raw)
    } catch {
      throw new ConfigError('DATABASE_URL is not a valid postgres:// URL')
    }
    return { dialect: 'postgres', url: raw }
  }
  throw new ConfigError('DATABASE_URL must start with sqlite: or postgres://')
}

function parseTrustProxy(raw: string): Config['trustProxy'] {
  if (/^\d{1,2}$/.test(raw)) return Number(raw)
  if (/^[0-9a-fA-F.:/, ]+$/.test(raw) && /[.:]/.test(raw)) {
    return Object.freeze(
      raw
        .split(',')
        .map((entry) => entry.trim())
        .filter(Boolean),
    )
  }
  try {
    return parseBoolean('PORTICO_TRUST_PROXY', raw)
  } catch {
    throw new ConfigError(
      `PORTICO_TRUST_PROXY must be true, false, a number of hops, or proxy addresses (e.g. 10.0.0.0/8,192.0.2.1), got "${raw}"`,
    )
  }
}

function parseRedisUrl(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new ConfigError('REDIS_URL is not a valid redis:// URL')
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    throw new ConfigError('REDIS_URL must start with redis:// or rediss://')
  }
  return raw
}

/** Metrics only when a port is given, and on loopback unless a host is chosen too. */
function parseMetrics(port: string | undefined, host: string | undefined): Config['metrics'] {
  if (port === undefined) {
    if (host !== undefined) throw new ConfigError('PORTICO_METRICS_HOST needs PORTICO_METRICS_PORT')
    return undefined
  }
  return Object.freeze({
    host: host ?? '127.0.0.1',
    port: parseInteger('PORTICO_METRICS_PORT', port, 0, 65535),
  })
}

function parseLogLevel(raw: string): LogLevel {
  const level = LOG_LEVELS.find((l) => l === raw)
  if (!level) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`)
  return level
}

function parseInteger(name: string, raw: string, min: number, max: number): number {
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`)
  const value = Number(raw)
  if (value < min || value > max) {
    throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`)
  }
  return value
}

/** `on` or `off`, nothing else. */
function parseSwitch(name: string, raw: string): boolean {
  if (raw === 'on') return true
  if (raw === 'off') return false
  throw new ConfigError(`${name} must be on or off`)
}

function parseSeconds(name: string, raw: string | undefined, fallback: number): number {
  return raw === undefined ? fallback : parseInteger(name, raw, 1, 400 * 86400)
}

function parseBoolean(name: string, raw: string): boolean {
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true
  if (['0', 'false', 'no', 'off'].includes(raw)) return false
  throw new ConfigError(`${name} must be true or false, got "${raw}"`)
}

function parseEmail(name: string, raw: string): string {
  if (!isEmailAddress(raw)) throw new ConfigError(`${name} must be an e-mail address, got "${raw}"`)
  return raw.toLowerCase()
}

function parseSecret(raw: string | undefined): string | undefined {
  if (raw !== undefined && raw.length < 32) {
    throw new ConfigError('PORTICO_KEY_ENCRYPTION_SECRET must be at least 32 characters long')
  }
  return raw
}
