import { randomBytes } from 'node:crypto'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createLogger } from '../../src/platform/logger.js'
import { createDatabaseRateLimiter, type RateLimiter } from '../../src/storage/rate-limits.js'
import { createRedisRateLimiter } from '../../src/storage/redis-rate-limits.js'
import { skipBecause } from '../support/skips.js'
import { openTestStorage, type TestStorage } from '../support/storage.js'

/**
 * Issue 16: the sign-in budgets are reserved atomically in the shared store. Two limiters on
 * one database stand for two instances; every reservation below is in flight at once.
 */
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'

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
const skipRedis = skipBecause(
  (await redisAnswers()) ? undefined : `no Redis answers at ${REDIS_URL}`,
)

let storage: TestStorage | undefined
let limiters: RateLimiter[]

const STORES = [
  {
    store: 'the database',
    skip: false,
    async open(): Promise<RateLimiter[]> {
      const opened = await openTestStorage()
      storage = opened
      return [
        createDatabaseRateLimiter(opened.opened.db),
        createDatabaseRateLimiter(opened.opened.db),
      ]
    },
  },
  {
    store: 'Redis',
    skip: skipRedis,
    async open(): Promise<RateLimiter[]> {
      // A namespace of its own, as a deployment's issuer gives it.
      const issuer = `http://127.0.0.1/atomic-budgets-${randomBytes(6).toString('hex')}`
      const logger = createLogger('silent')
      return [
        createRedisRateLimiter({ url: REDIS_URL, issuer, logger }),
        createRedisRateLimiter({ url: REDIS_URL, issuer, logger }),
      ]
    },
  },
] as const

const NOW = Date.UTC(2030, 0, 1, 12)
const WINDOW = 15 * 60_000

function burst(subject: string, n: number, limit: number) {
  return Promise.all(
    Array.from({ length: n }, (_, i) =>
      (limiters[i % 2] as RateLimiter).reserve('b', subject, limit, WINDOW, NOW),
    ),
  )
}

describe.each(STORES)('budgets reserved in $store', ({ skip, open }) => {
  beforeAll(async () => {
    if (!skip) limiters = await open()
  })
  afterAll(async () => {
    for (const limiter of limiters ?? []) await limiter.close()
    await storage?.close()
    storage = undefined
  })

  it.skipIf(skip)(
    'of 60 concurrent reservations on two instances, exactly the limit of 20 are allowed',
    async () => {
      const verdicts = await burst('burst', 60, 20)
      expect(verdicts.filter((v) => v.allowed)).toHaveLength(20)
    },
  )

  it.skipIf(skip)(
    'a refund gives one unit back, in the window it was taken from, never below zero',
    async () => {
      const [first] = limiters as [RateLimiter]
      for (let i = 0; i < 3; i++)
        expect((await first.reserve('b', 'r', 3, WINDOW, NOW)).allowed).toBe(true)
      expect((await first.reserve('b', 'r', 3, WINDOW, NOW)).allowed).toBe(false)
      await first.refund('b', 'r', WINDOW, NOW) // the refused one
      await first.refund('b', 'r', WINDOW, NOW) // one that was allowed
      expect((await first.reserve('b', 'r', 3, WINDOW, NOW)).allowed).toBe(true)
      expect((await first.reserve('b', 'r', 3, WINDOW, NOW)).allowed).toBe(false)
      // A refund for the next window touches nothing there.
      await first.refund('b', 'r', WINDOW, NOW + WINDOW)
      await first.refund('b', 'fresh', WINDOW, NOW)
      const fresh = await burst('fresh', 4, 3)
      expect(fresh.filter((v) => v.allowed)).toHaveLength(3)
    },
  )
})
