import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Browser, formField, type TestPerson } from '../support/flow.js'
import { formInit, jsonInit, readJson } from '../support/http.js'
import { type Instances, startInstances } from '../support/instances.js'
import { roomInWindow, withRoom } from '../support/real-clock-windows.js'
import { needsPostgres, skipBecause } from '../support/skips.js'

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'

const skip = needsPostgres('rate limits counted across instances (test/scale-out/rate-limits)')

/** The shared Redis of this machine and CI, asked once whether it answers. */
async function redisAnswers(): Promise<boolean> {
  const probe = new Redis(REDIS_URL, { lazyConnect: true, retryStrategy: () => null })
  probe.on('error', () => {})
  try {
    await probe.connect()
    return (await probe.ping()) === 'PONG'
  } catch {
    return false
  } finally {
    probe.disconnect()
  }
}
const skipRedis =
  skip || skipBecause((await redisAnswers()) ? undefined : `no Redis answers at ${REDIS_URL}`)

/** Low limits, so that three instances reach them together in a few requests. */
const LIMITS = {
  PORTICO_ANONYMOUS_API_RATE_LIMIT: '6',
  PORTICO_TOKEN_RATE_LIMIT: '4',
  PORTICO_REGISTRATION_RATE_LIMIT: '3',
}

/** Failed sign-ins allowed per account and address in 15 minutes (http/sign-in-throttle.ts). */
const ACCOUNT_FAILURES = 10

const STORES: ReadonlyArray<{ store: string; env: Record<string, string> }> = [
  { store: 'PostgreSQL', env: {} },
  ...(skipRedis ? [] : [{ store: 'Redis', env: { REDIS_URL } }]),
]

describe.skipIf(skip).each(STORES)(
  'rate limits count across three instances, in $store',
  ({ store, env }) => {
    let cluster: Instances
    beforeAll(async () => {
      cluster = await startInstances(3, { env: { ...LIMITS, ...env } })
    })
    afterAll(async () => {
      await cluster?.stop()
    })

    it(
      'anonymous API: the limit is shared, then 429 problem+json with Retry-After everywhere',
      withRoom(10_000),
      async () => {
        await roomInWindow(60_000, 10_000)
        for (let i = 0; i < 6; i++) {
          const response = await cluster.at(i % 3).fetch('/api/v1')
          expect(response.status).toBe(200)
          await response.arrayBuffer()
        }
        for (const at of [0, 1, 2]) {
          const response = await cluster.at(at).fetch('/api/v1')
          expect(response.status).toBe(429)
          expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/)
          expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0)
          expect((await readJson(response)).code).toBe('rate_limited')
        }
      },
    )

    it(
      'token endpoint: counted per client_id across instances, then 429 slow_down',
      withRoom(10_000),
      async () => {
        await roomInWindow(60_000, 10_000)
        const fields = {
          grant_type: 'refresh_token',
          refresh_token: 'prt_x',
          client_id: 'pci_probe',
        }
        for (let i = 0; i < 4; i++) {
          const response = await cluster.at(i % 3).fetch('/api/oauth/token', formInit(fields))
          expect(response.status).toBe(401)
          await response.arrayBuffer()
        }
        const limited = await cluster.at(1).fetch('/api/oauth/token', formInit(fields))
        expect(limited.status).toBe(429)
        expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0)
        expect((await readJson(limited)).error).toBe('slow_down')
        const other = await cluster
          .at(1)
          .fetch('/api/oauth/token', formInit({ ...fields, client_id: 'pci_other' }))
        expect(other.status).toBe(401)
        await other.arrayBuffer()
      },
    )

    it('registration: counted per address across instances', withRoom(10_000), async () => {
      await roomInWindow(60_000, 10_000)
      const body = { redirect_uris: ['http://127.0.0.1:8080/callback'] }
      for (let i = 0; i < 3; i++) {
        const response = await cluster.at(i % 3).fetch('/api/oauth/register', jsonInit(body))
        expect(response.status).toBe(201)
        await response.arrayBuffer()
      }
      const limited = await cluster.at(0).fetch('/api/oauth/register', jsonInit(body))
      expect(limited.status).toBe(429)
      await limited.arrayBuffer()
    })

    it(
      'sign-in: failures on every instance count against the account together',
      withRoom(30_000),
      async () => {
        await roomInWindow(15 * 60_000, 30_000)
        const person: TestPerson = await cluster.person()
        const browser = new Browser(cluster.rotating())
        const attempt = async (password: string) => {
          const page = await (await browser.request('/login')).text()
          return browser.post('/login', {
            csrf: formField(page, 'csrf') ?? '',
            email: person.email,
            password,
          })
        }
        for (let i = 0; i < ACCOUNT_FAILURES; i++) {
          const response = await attempt('not the password')
          expect(response.status).toBe(401)
          await response.arrayBuffer()
        }
        const throttled = await attempt(person.password)
        expect(throttled.status).toBe(429)
        expect(throttled.headers.get('content-type')).toMatch(/^text\/html/)
        expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0)
        await throttled.arrayBuffer()
      },
    )

    it(`keeps the counters in ${store} only`, async () => {
      const rows = await cluster.deps.database.db.selectFrom('rate_limits').select('key').execute()
      const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 })
      try {
        await redis.connect()
        const keys = await redis.keys(`portico:${cluster.issuer}:rate:*`)
        if (store === 'Redis') {
          expect(rows).toEqual([])
          expect(keys.length).toBeGreaterThanOrEqual(4)
          for (const key of keys) expect(await redis.pttl(key)).toBeGreaterThan(0)
        } else {
          expect(rows.length).toBeGreaterThanOrEqual(4)
          expect(keys).toEqual([])
        }
      } finally {
        redis.disconnect()
      }
    })
  },
)
