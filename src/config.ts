import path from 'node:path'
import { isEmailAddress } from './people/email.js'

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
  /** Trust `X-Forwarded-*` from a proxy in front of Portico. */
  readonly trustProxy: boolean
  readonly lifetimes: Lifetimes
  /** E-mail of the `owner` account created on first start (lower-cased). */
  readonly ownerEmail: string
}

export type DatabaseConfig =
  | { readonly dialect: 'sqlite'; readonly file: string }
  | { readonly dialect: 'postgres'; readonly url: string }

/** Lifetimes in seconds. */
export interface Lifetimes {
  readonly authorizationCode: number
  readonly accessToken: number
  readonly refreshToken: number
  readonly idToken: number
  readonly session: number
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
 * @example parseConfig({ PORT: '0', DATABASE_URL: 'sqlite::memory:' })
 */
export function parseConfig(env: Source, flags: Source = {}): Config {
  const get = (name: string, flag?: string): string | undefined => {
    const value = (flag ? flags[flag] : undefined) ?? env[name]
    return value === undefined || value === '' ? undefined : value
  }
  return Object.freeze({
    issuer: parseIssuer(get('PORTICO_ISSUER', 'issuer') ?? 'http://127.0.0.1:3000'),
    host: get('HOST', 'host') ?? '127.0.0.1',
    port: parseInteger('PORT', get('PORT', 'port') ?? '3000', 0, 65535),
    database: parseDatabaseUrl(get('DATABASE_URL', 'database-url') ?? 'sqlite:./data/portico.db'),
    logLevel: parseLogLevel(get('LOG_LEVEL', 'log-level') ?? 'info'),
    keyEncryptionSecret: parseSecret(get('PORTICO_KEY_ENCRYPTION_SECRET')),
    allowLoopbackHostnames: parseBoolean(
      'PORTICO_ALLOW_LOOPBACK_HOSTNAMES',
      get('PORTICO_ALLOW_LOOPBACK_HOSTNAMES') ?? 'false',
    ),
    registrationRateLimit: parseInteger(
      'PORTICO_REGISTRATION_RATE_LIMIT',
      get('PORTICO_REGISTRATION_RATE_LIMIT') ?? '30',
      1,
      1_000_000,
    ),
    trustProxy: parseBoolean('PORTICO_TRUST_PROXY', get('PORTICO_TRUST_PROXY') ?? 'false'),
    lifetimes: Object.freeze({
      authorizationCode: 60,
      accessToken: parseSeconds('PORTICO_ACCESS_TOKEN_TTL', get('PORTICO_ACCESS_TOKEN_TTL'), 3600),
      refreshToken: parseSeconds(
        'PORTICO_REFRESH_TOKEN_TTL',
        get('PORTICO_REFRESH_TOKEN_TTL'),
        30 * 86400,
      ),
      idToken: parseSeconds('PORTICO_ID_TOKEN_TTL', get('PORTICO_ID_TOKEN_TTL'), 3600),
      session: parseSeconds('PORTICO_SESSION_TTL', get('PORTICO_SESSION_TTL'), 12 * 3600),
    }),
    ownerEmail: parseEmail(
      'PORTICO_OWNER_EMAIL',
      get('PORTICO_OWNER_EMAIL') ?? 'owner@school.invalid',
    ),
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
