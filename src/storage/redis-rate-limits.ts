import type * as IORedis from 'ioredis'
import { lazyModule } from '../platform/lazy-module.js'
import type { Logger } from '../platform/logger.js'
import { type RateLimiter, windowOf } from './rate-limits.js'
import { StorageUnavailable } from './unavailable.js'

/** The Redis client, loaded once a deployment configures Redis. */
const redisClient = lazyModule<typeof IORedis>('ioredis')

/**
 * INCR and, for the window's first request, PEXPIRE, as one atomic step: a counter never
 * exists without its expiry, whatever happens between the two commands.
 */
const HIT = `local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return n`

/** DECR that never goes below zero nor creates a counter that has expired meanwhile. */
const REFUND = `local n = tonumber(redis.call('GET', KEYS[1]) or '0')
if n > 0 then return redis.call('DECR', KEYS[1]) end
return 0`

export interface RedisRateLimiterOptions {
  readonly url: string
  /** Namespaces the counters: deployments with different issuers may share one Redis. */
  readonly issuer: string
  readonly logger: Logger
}

/**
 * Counters in Redis, for deployments whose instances share one. Counters expire by
 * themselves (sweep does nothing). Every command is bounded: while Redis is unreachable
 * the limiter throws {@link StorageUnavailable} at once and requests are answered 503.
 * It connects on first use, so a CLI command that never counts never connects.
 */
export function createRedisRateLimiter(options: RedisRateLimiterOptions): RateLimiter {
  const { Redis } = redisClient()
  const redis = new Redis(options.url, {
    lazyConnect: true,
    connectTimeout: 2000,
    commandTimeout: 1000,
    maxRetriesPerRequest: 1,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    keyPrefix: `portico:${options.issuer}:rate:`,
  })
  let failing = false
  redis.on('error', (error: Error) => {
    if (!failing) options.logger.warn({ err: error }, 'redis is unavailable')
    failing = true
  })
  redis.on('ready', () => {
    if (failing) options.logger.info('redis is available again')
    failing = false
  })

  async function count(key: string, windowMs: number): Promise<number> {
    try {
      return Number(await redis.eval(HIT, 1, key, windowMs))
    } catch (error) {
      throw new StorageUnavailable('redis did not count the request', { cause: error })
    }
  }

  async function hit(
    bucket: string,
    subject: string,
    limit: number,
    windowMs: number,
    now: number,
  ) {
    const window = windowOf(now, windowMs)
    const n = await count(`${bucket}:${window.start}:${subject}`, windowMs)
    return { allowed: n <= limit, retryAfter: window.retryAfter }
  }

  async function refund(bucket: string, subject: string, windowMs: number, now: number) {
    const window = windowOf(now, windowMs)
    try {
      await redis.eval(REFUND, 1, `${bucket}:${window.start}:${subject}`)
    } catch (error) {
      throw new StorageUnavailable('redis did not refund the request', { cause: error })
    }
  }

  return {
    hit,
    // INCR is atomic and nothing is held in memory: every hit is already a reservation.
    reserve: hit,
    refund,
    // Redis answers in memory: a released unit is simply given back at once.
    release: refund,
    async peek(bucket, subject, limit, windowMs, now) {
      const window = windowOf(now, windowMs)
      let value: string | null
      try {
        value = await redis.get(`${bucket}:${window.start}:${subject}`)
      } catch (error) {
        throw new StorageUnavailable('redis did not answer', { cause: error })
      }
      return { allowed: Number(value ?? 0) < limit, retryAfter: window.retryAfter }
    },
    sweep: async () => {},
    async ping() {
      try {
        return (await redis.ping()) === 'PONG'
      } catch {
        return false
      }
    },
    async close() {
      if (redis.status === 'wait' || redis.status === 'end') {
        redis.disconnect()
        return
      }
      await redis.quit().catch(() => redis.disconnect())
    },
  }
}
