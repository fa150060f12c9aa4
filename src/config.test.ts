import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { ConfigError, parseConfig } from './config.js'

function refusal(env: Record<string, string>): ConfigError {
  try {
    parseConfig(env)
  } catch (error) {
    if (error instanceof ConfigError) return error
    throw error
  }
  throw new Error(`accepted ${JSON.stringify(env)}`)
}

describe('configuration, parsed once from the environment', () => {
  it('has working defaults: issuer http://127.0.0.1:3000, SQLite under ./data', () => {
    const config = parseConfig({})
    expect(config.issuer).toBe('http://127.0.0.1:3000')
    expect(config.host).toBe('127.0.0.1')
    expect(config.port).toBe(3000)
    expect(config.database).toEqual({
      dialect: 'sqlite',
      file: path.resolve('data/portico.db'),
    })
    expect(config.logLevel).toBe('info')
    expect(config.keyEncryptionSecret).toBeUndefined()
    expect(config.allowLoopbackHostnames).toBe(false)
    expect(config.registrationRateLimit).toBeGreaterThan(0)
    expect(config.trustProxy).toBe(false)
    expect(config.filesDir).toBeUndefined()
    expect(config.uploadMaxBytes).toBe(25 * 1024 * 1024)
    expect(parseConfig({ PORTICO_FILES_DIR: 'up' }).filesDir).toBe(path.resolve('up'))
    expect(() => parseConfig({ PORTICO_UPLOAD_MAX_BYTES: String(26 * 1024 * 1024) })).toThrow(
      /PORTICO_UPLOAD_MAX_BYTES/,
    )
    expect(Object.isFrozen(config)).toBe(true)
  })

  it('treats an empty variable as unset', () => {
    expect(parseConfig({ PORT: '', PORTICO_ISSUER: '' }).port).toBe(3000)
  })

  it('without PORTICO_ISSUER, derives the issuer from the loopback address it listens on', () => {
    expect(parseConfig({ PORT: '3977' }).issuer).toBe('http://127.0.0.1:3977')
    expect(parseConfig({}, { port: '4100' }).issuer).toBe('http://127.0.0.1:4100')
    expect(parseConfig({ HOST: '127.0.0.2', PORT: '3977' }).issuer).toBe('http://127.0.0.2:3977')
    expect(parseConfig({ HOST: 'localhost', PORT: '3977' }).issuer).toBe('http://localhost:3977')
    expect(parseConfig({ HOST: '::1', PORT: '3977' }).issuer).toBe('http://[::1]:3977')
    // A configured issuer wins over the listening address.
    expect(parseConfig({ PORT: '3977', PORTICO_ISSUER: 'https://auth.example' }).issuer).toBe(
      'https://auth.example',
    )
  })

  it('refuses to guess the issuer for a non-loopback HOST or a system-picked PORT', () => {
    for (const host of ['0.0.0.0', '::', '10.1.2.3', 'auth.example']) {
      expect(refusal({ HOST: host }).message).toMatch(/not a loopback address: set PORTICO_ISSUER/)
      expect(parseConfig({ HOST: host, PORTICO_ISSUER: 'https://auth.example' }).host).toBe(host)
    }
    expect(refusal({ PORT: '0' }).message).toMatch(/PORT=0 .* set PORTICO_ISSUER/)
  })

  it('reads every value from the environment', () => {
    const config = parseConfig({
      PORTICO_ISSUER: 'https://auth.school.example',
      HOST: '0.0.0.0',
      PORT: '8080',
      DATABASE_URL: 'postgres://portico@db.internal:5432/portico',
      LOG_LEVEL: 'debug',
      PORTICO_KEY_ENCRYPTION_SECRET: 'x'.repeat(32),
      PORTICO_ALLOW_LOOPBACK_HOSTNAMES: 'true',
    })
    expect(config.issuer).toBe('https://auth.school.example')
    expect(config.host).toBe('0.0.0.0')
    expect(config.port).toBe(8080)
    expect(config.database).toEqual({
      dialect: 'postgres',
      url: 'postgres://portico@db.internal:5432/portico',
    })
    expect(config.logLevel).toBe('debug')
    expect(config.keyEncryptionSecret).toBe('x'.repeat(32))
    expect(config.allowLoopbackHostnames).toBe(true)
  })

  it('lets flags take precedence over the environment', () => {
    const config = parseConfig({ PORT: '3000' }, { port: '4000', 'log-level': 'warn' })
    expect(config.port).toBe(4000)
    expect(config.logLevel).toBe('warn')
  })

  it('accepts sqlite::memory: and resolves SQLite paths', () => {
    expect(parseConfig({ DATABASE_URL: 'sqlite::memory:' }).database).toEqual({
      dialect: 'sqlite',
      file: ':memory:',
    })
    expect(parseConfig({ DATABASE_URL: 'sqlite:///tmp/p.db' }).database).toEqual({
      dialect: 'sqlite',
      file: '/tmp/p.db',
    })
    expect(parseConfig({ DATABASE_URL: 'postgresql://h/db' }).database.dialect).toBe('postgres')
  })
})

describe('the issuer is the exact configured string without a trailing slash', () => {
  it('strips one trailing slash', () => {
    expect(parseConfig({ PORTICO_ISSUER: 'https://auth.example/' }).issuer).toBe(
      'https://auth.example',
    )
    expect(parseConfig({ PORTICO_ISSUER: 'https://auth.example/portico/' }).issuer).toBe(
      'https://auth.example/portico',
    )
    expect(parseConfig({ PORTICO_ISSUER: 'http://127.0.0.1:3000/' }).issuer).toBe(
      'http://127.0.0.1:3000',
    )
  })

  it('allows http on loopback hosts only', () => {
    for (const issuer of ['http://127.0.0.1:3000', 'http://localhost:3000', 'http://[::1]:3000']) {
      expect(parseConfig({ PORTICO_ISSUER: issuer }).issuer).toBe(issuer)
    }
  })
})

describe('bad configuration stops start-up with a one-line reason', () => {
  it.each([
    ['issuer that is not a URL', { PORTICO_ISSUER: 'auth.example' }, /PORTICO_ISSUER/],
    ['issuer with another scheme', { PORTICO_ISSUER: 'ftp://auth.example' }, /https/],
    ['http issuer on a public host', { PORTICO_ISSUER: 'http://auth.example' }, /https/],
    ['issuer with a query', { PORTICO_ISSUER: 'https://auth.example?x=1' }, /query/],
    ['issuer with an empty query', { PORTICO_ISSUER: 'https://auth.example/?' }, /query/],
    ['issuer with a fragment', { PORTICO_ISSUER: 'https://auth.example#top' }, /fragment/],
    ['issuer with user-info', { PORTICO_ISSUER: 'https://u:p@auth.example' }, /user/],
    ['issuer not in canonical form', { PORTICO_ISSUER: 'https://Auth.Example' }, /canonical/],
    ['issuer with a default port', { PORTICO_ISSUER: 'https://auth.example:443' }, /canonical/],
    ['PORT not a number', { PORT: 'abc' }, /PORT must be a whole number/],
    ['PORT negative', { PORT: '-1' }, /PORT/],
    ['PORT fractional', { PORT: '80.5' }, /PORT/],
    ['PORT too large', { PORT: '65536' }, /PORT must be between 0 and 65535/],
    ['DATABASE_URL of another engine', { DATABASE_URL: 'mysql://db/x' }, /DATABASE_URL/],
    ['DATABASE_URL without a SQLite path', { DATABASE_URL: 'sqlite:' }, /DATABASE_URL/],
    ['DATABASE_URL a bare path', { DATABASE_URL: './data/portico.db' }, /DATABASE_URL/],
    ['DATABASE_URL malformed', { DATABASE_URL: 'postgres://a b' }, /DATABASE_URL/],
    ['LOG_LEVEL unknown', { LOG_LEVEL: 'verbose' }, /LOG_LEVEL must be one of/],
    ['LOG_LEVEL upper case', { LOG_LEVEL: 'INFO' }, /LOG_LEVEL/],
    [
      'key-encryption secret too short',
      { PORTICO_KEY_ENCRYPTION_SECRET: 'short' },
      /PORTICO_KEY_ENCRYPTION_SECRET must be at least 32 characters/,
    ],
    [
      'boolean setting not a boolean',
      { PORTICO_ALLOW_LOOPBACK_HOSTNAMES: 'maybe' },
      /PORTICO_ALLOW_LOOPBACK_HOSTNAMES/,
    ],
    [
      'rate limit zero',
      { PORTICO_REGISTRATION_RATE_LIMIT: '0' },
      /PORTICO_REGISTRATION_RATE_LIMIT/,
    ],
  ])('%s', (_label, env, message) => {
    const error = refusal(env)
    expect(error).toBeInstanceOf(ConfigError)
    expect(error.message).toMatch(message)
    expect(error.message).not.toMatch(/[\r\n]/)
  })

  it('never echoes the key-encryption secret in its reason', () => {
    expect(refusal({ PORTICO_KEY_ENCRYPTION_SECRET: 'hunter2' }).message).not.toContain('hunter2')
  })
})

describe('configuration for running several instances', () => {
  it('defaults: counters in the database, no metrics, 10 s grace, a pool of 10', () => {
    const config = parseConfig({})
    expect(config.redisUrl).toBeUndefined()
    expect(config.metrics).toBeUndefined()
    expect(config.tokenRateLimit).toBe(300)
    expect(config.anonymousApiRateLimit).toBe(60)
    expect(config.shutdownGrace).toBe(10)
    expect(config.databasePool).toEqual({ size: 10, timeoutMs: 10_000, sqliteCacheMib: 16 })
  })

  it('reads Redis, metrics, limits, pool and grace', () => {
    const config = parseConfig({
      REDIS_URL: 'redis://cache.internal:6379/2',
      PORTICO_METRICS_PORT: '9464',
      PORTICO_TOKEN_RATE_LIMIT: '100',
      PORTICO_ANONYMOUS_API_RATE_LIMIT: '20',
      PORTICO_DATABASE_POOL_SIZE: '25',
      PORTICO_DATABASE_TIMEOUT: '3',
      PORTICO_SQLITE_CACHE_MIB: '2',
      PORTICO_SHUTDOWN_GRACE: '30',
    })
    expect(config.redisUrl).toBe('redis://cache.internal:6379/2')
    expect(config.metrics).toEqual({ host: '127.0.0.1', port: 9464 })
    expect(config.tokenRateLimit).toBe(100)
    expect(config.anonymousApiRateLimit).toBe(20)
    expect(config.databasePool).toEqual({ size: 25, timeoutMs: 3000, sqliteCacheMib: 2 })
    expect(config.shutdownGrace).toBe(30)
    expect(
      parseConfig({ PORTICO_METRICS_PORT: '0', PORTICO_METRICS_HOST: '10.0.0.5' }).metrics,
    ).toEqual({ host: '10.0.0.5', port: 0 })
  })

  it('reads PORTICO_TRUST_PROXY as a boolean, a number of hops, or proxy addresses', () => {
    expect(parseConfig({ PORTICO_TRUST_PROXY: 'true' }).trustProxy).toBe(true)
    expect(parseConfig({ PORTICO_TRUST_PROXY: '1' }).trustProxy).toBe(1)
    expect(parseConfig({ PORTICO_TRUST_PROXY: '2' }).trustProxy).toBe(2)
    expect(parseConfig({ PORTICO_TRUST_PROXY: '10.0.0.0/8, 192.0.2.1' }).trustProxy).toEqual([
      '10.0.0.0/8',
      '192.0.2.1',
    ])
  })

  it.each([
    ['REDIS_URL of another scheme', { REDIS_URL: 'http://cache:6379' }, /REDIS_URL/],
    ['REDIS_URL malformed', { REDIS_URL: 'redis://a b' }, /REDIS_URL/],
    ['metrics host without a port', { PORTICO_METRICS_HOST: '127.0.0.1' }, /PORTICO_METRICS_PORT/],
    ['token rate limit zero', { PORTICO_TOKEN_RATE_LIMIT: '0' }, /PORTICO_TOKEN_RATE_LIMIT/],
    ['pool size zero', { PORTICO_DATABASE_POOL_SIZE: '0' }, /PORTICO_DATABASE_POOL_SIZE/],
    ['SQLite cache of no MiB', { PORTICO_SQLITE_CACHE_MIB: '0' }, /PORTICO_SQLITE_CACHE_MIB/],
    ['trust proxy nonsense', { PORTICO_TRUST_PROXY: 'sometimes' }, /PORTICO_TRUST_PROXY/],
  ])('refuses %s', (_label, env, message) => {
    expect(refusal(env).message).toMatch(message)
  })
})

describe('bounds on unauthenticated writes (issue 16)', () => {
  it('defaults: 60 anonymous authorizations a minute, 300 pending, 20 invalid_grant, 7 days', () => {
    const config = parseConfig({})
    expect(config.authorizeRateLimit).toBe(60)
    expect(config.pendingAuthorizationsPerAddress).toBe(300)
    expect(config.invalidGrantLimit).toBe(20)
    expect(config.unusedClientTtl).toBe(7 * 86400)
  })

  it('reads each from the environment', () => {
    const config = parseConfig({
      PORTICO_AUTHORIZE_RATE_LIMIT: '10',
      PORTICO_PENDING_AUTHORIZATIONS_PER_ADDRESS: '50',
      PORTICO_INVALID_GRANT_LIMIT: '5',
      PORTICO_UNUSED_CLIENT_TTL: '86400',
    })
    expect(config.authorizeRateLimit).toBe(10)
    expect(config.pendingAuthorizationsPerAddress).toBe(50)
    expect(config.invalidGrantLimit).toBe(5)
    expect(config.unusedClientTtl).toBe(86400)
  })

  it.each([
    'PORTICO_AUTHORIZE_RATE_LIMIT',
    'PORTICO_PENDING_AUTHORIZATIONS_PER_ADDRESS',
    'PORTICO_INVALID_GRANT_LIMIT',
    'PORTICO_UNUSED_CLIENT_TTL',
  ])('refuses %s=0 with a one-line reason naming it', (name) => {
    expect(() => parseConfig({ [name]: '0' })).toThrow(new RegExp(name))
  })
})

describe('activity retention (issue 21)', () => {
  it('keeps 90 days unless PORTICO_ACTIVITY_RETENTION_DAYS says otherwise', () => {
    expect(parseConfig({}).activityRetentionDays).toBe(90)
    expect(parseConfig({ PORTICO_ACTIVITY_RETENTION_DAYS: '7' }).activityRetentionDays).toBe(7)
  })

  it.each(['0', 'x', '-1'])('refuses PORTICO_ACTIVITY_RETENTION_DAYS=%s naming it', (raw) => {
    expect(() => parseConfig({ PORTICO_ACTIVITY_RETENTION_DAYS: raw })).toThrow(
      /PORTICO_ACTIVITY_RETENTION_DAYS/,
    )
  })
})
