import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseConfig } from '../../../src/config.js'
import { startServer } from '../../../src/main.js'
import { createLogger } from '../../../src/platform/logger.js'
import { createRedisRateLimiter } from '../../../src/storage/redis-rate-limits.js'
import { StorageUnavailable } from '../../../src/storage/unavailable.js'
import { formInit, jsonInit, readJson } from '../../support/http.js'
import { freePort } from '../../support/ports.js'
import { startTestServer, type TestServer } from '../../support/server.js'
import { skipBecause } from '../../support/skips.js'

const REDIS_SERVER = '/usr/bin/redis-server'
const skip = skipBecause(
  existsSync(REDIS_SERVER) ? undefined : `the Redis tests start ${REDIS_SERVER}, not installed`,
)

/** A Redis server of this file's own, so that it can be stopped and started. */
let redisPort: number
let redisProcess: ChildProcess | undefined
let admin: Redis

async function startRedis(): Promise<void> {
  const child = spawn(
    REDIS_SERVER,
    ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  )
  redisProcess = child
  const deadline = Date.now() + 10_000
  for (;;) {
    const probe = new Redis(redisPort, '127.0.0.1', {
      lazyConnect: true,
      retryStrategy: () => null,
    })
    probe.on('error', () => {})
    try {
      await probe.connect()
      await probe.ping()
      return
    } catch (error) {
      if (Date.now() > deadline) throw error
      await new Promise((resolve) => setTimeout(resolve, 50))
    } finally {
      probe.disconnect()
    }
  }
}

async function stopRedis(): Promise<void> {
  const child = redisProcess
  if (!child || child.exitCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGTERM')
  await exited
}

const redisUrl = () => `redis://127.0.0.1:${redisPort}`

beforeAll(async () => {
  if (skip) return
  redisPort = await freePort()
  await startRedis()
  admin = new Redis(redisPort, '127.0.0.1', { maxRetriesPerRequest: 1 })
  admin.on('error', () => {})
})
afterAll(async () => {
  admin?.disconnect()
  await stopRedis()
})

describe.skipIf(skip)('Redis rate limiter', () => {
  const logger = createLogger('silent')

  it('counts every one of many concurrent hits exactly once, with an expiry', async () => {
    const limiter = createRedisRateLimiter({ url: redisUrl(), issuer: 'https://a.example', logger })
    const now = Date.UTC(2030, 0, 1, 12, 0, 10)
    const verdicts = await Promise.all(
      Array.from({ length: 50 }, () => limiter.hit('b', 's', 20, 60_000, now)),
    )
    expect(verdicts.filter((v) => v.allowed)).toHaveLength(20)
    expect(verdicts.every((v) => v.retryAfter === 50)).toBe(true)
    const key = `portico:https://a.example:rate:b:${Date.UTC(2030, 0, 1, 12)}:s`
    expect(await admin.get(key)).toBe('50')
    const ttl = await admin.pttl(key)
    expect(ttl).toBeGreaterThan(50_000)
    expect(ttl).toBeLessThanOrEqual(60_000)
    await limiter.close()
  })

  it('peeks without counting, and keeps deployments with different issuers apart', async () => {
    const one = createRedisRateLimiter({ url: redisUrl(), issuer: 'https://one.example', logger })
    const two = createRedisRateLimiter({ url: redisUrl(), issuer: 'https://two.example', logger })
    const now = Date.now()
    await one.hit('login', 'x', 2, 60_000, now)
    await one.hit('login', 'x', 2, 60_000, now)
    expect((await one.peek('login', 'x', 2, 60_000, now)).allowed).toBe(false)
    expect((await one.peek('login', 'x', 2, 60_000, now)).allowed).toBe(false)
    expect((await two.peek('login', 'x', 2, 60_000, now)).allowed).toBe(true)
    expect((await two.hit('login', 'x', 2, 60_000, now)).allowed).toBe(true)
    await Promise.all([one.close(), two.close()])
  })

  it('throws StorageUnavailable at once when Redis cannot be reached', async () => {
    const port = await freePort()
    const limiter = createRedisRateLimiter({
      url: `redis://127.0.0.1:${port}`,
      issuer: 'https://a.example',
      logger,
    })
    const started = Date.now()
    await expect(limiter.hit('b', 's', 1, 60_000, Date.now())).rejects.toBeInstanceOf(
      StorageUnavailable,
    )
    expect(Date.now() - started).toBeLessThan(3000)
    expect(await limiter.ping()).toBe(false)
    await limiter.close()
  })
})

describe.skipIf(skip)('a Portico with REDIS_URL', () => {
  let server: TestServer
  beforeAll(async () => {
    if (skip) return
    server = await startTestServer({
      env: { REDIS_URL: redisUrl(), PORTICO_ANONYMOUS_API_RATE_LIMIT: '3' },
    })
  })
  afterAll(async () => {
    await server?.close()
  })

  it('counts in Redis, not in the database', async () => {
    for (let i = 0; i < 3; i++) expect((await server.fetch('/api/v1')).status).toBe(200)
    const limited = await server.fetch('/api/v1')
    expect(limited.status).toBe(429)
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0)
    await limited.arrayBuffer()
    const rows = await server.deps.database.db.selectFrom('rate_limits').select('key').execute()
    expect(rows).toEqual([])
    expect(await admin.keys(`portico:${server.issuer}:rate:api-anonymous:*`)).toHaveLength(1)
  })

  it('answers 503 with Retry-After while Redis is down, and recovers by itself', async () => {
    await stopRedis()
    const started = Date.now()
    const [anonymous, registration, ready] = await Promise.all([
      server.fetch('/api/v1'),
      server.fetch('/api/oauth/register', jsonInit({ redirect_uris: ['http://127.0.0.1:1/cb'] })),
      server.fetch('/readyz'),
    ])
    expect(Date.now() - started).toBeLessThan(3000)
    expect(anonymous.status).toBe(503)
    expect(anonymous.headers.get('content-type')).toMatch(/^application\/problem\+json/)
    expect(anonymous.headers.get('retry-after')).toBe('5')
    expect((await readJson(anonymous)).code).toBe('temporarily_unavailable')
    expect(registration.status).toBe(503)
    expect((await readJson(registration)).error).toBe('temporarily_unavailable')
    expect(ready.status).toBe(503)
    await ready.arrayBuffer()
    // The token endpoint counts too; what counts nothing goes on working.
    const token = await server.fetch('/api/oauth/token', formInit({ grant_type: 'password' }))
    expect(token.status).toBe(503)
    await token.arrayBuffer()
    expect((await server.fetch('/.well-known/openid-configuration')).status).toBe(200)

    await startRedis()
    const deadline = Date.now() + 15_000
    for (;;) {
      const response = await server.fetch('/readyz')
      await response.arrayBuffer()
      if (response.status === 200) break
      expect(Date.now()).toBeLessThan(deadline)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    const after = await server.fetch(
      '/api/oauth/register',
      jsonInit({ redirect_uris: ['http://127.0.0.1:1/cb'] }),
    )
    expect(after.status).toBe(201)
    await after.arrayBuffer()
  })

  it('refuses to start when Redis does not answer', async () => {
    const port = await freePort()
    const config = parseConfig({
      DATABASE_URL: 'sqlite::memory:',
      PORT: '0',
      PORTICO_ISSUER: 'http://127.0.0.1:3000',
      PORTICO_KEY_ENCRYPTION_SECRET: 'x'.repeat(32),
      REDIS_URL: `redis://127.0.0.1:${port}`,
    })
    await expect(startServer(config, { logger: createLogger('silent') })).rejects.toThrow(
      /REDIS_URL/,
    )
  })
})
