import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDatabaseRateLimiter, type RateLimiter } from '../../src/storage/rate-limits.js'
import { openTestStorage, type TestStorage } from '../support/storage.js'

/**
 * Issue 16: the sign-in budgets are reserved atomically in the shared store. Two limiters on
 * one database stand for two instances; every reservation below is in flight at once.
 */
let storage: TestStorage
let limiters: RateLimiter[]
beforeAll(async () => {
  storage = await openTestStorage()
  limiters = [
    createDatabaseRateLimiter(storage.opened.db),
    createDatabaseRateLimiter(storage.opened.db),
  ]
})
afterAll(async () => {
  for (const limiter of limiters ?? []) await limiter.close()
  await storage?.close()
})

const NOW = Date.UTC(2030, 0, 1, 12)
const WINDOW = 15 * 60_000

function burst(subject: string, n: number, limit: number) {
  return Promise.all(
    Array.from({ length: n }, (_, i) =>
      (limiters[i % 2] as RateLimiter).reserve('b', subject, limit, WINDOW, NOW),
    ),
  )
}

describe('budgets reserved in the shared store', () => {
  it('of 60 concurrent reservations on two instances, exactly the limit of 20 are allowed', async () => {
    const verdicts = await burst('burst', 60, 20)
    expect(verdicts.filter((v) => v.allowed)).toHaveLength(20)
  })

  it('a refund gives one unit back, in the window it was taken from, never below zero', async () => {
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
  })
})
