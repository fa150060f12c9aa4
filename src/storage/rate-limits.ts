import { sql } from 'kysely'
import { digest } from '../platform/crypto.js'
import { cannotBeStored } from './lookup.js'
import type { Db } from './schema.js'

/** The verdict on one more request in a fixed window. */
export interface RateLimitVerdict {
  readonly allowed: boolean
  /** Seconds until the window ends, for `Retry-After`. */
  readonly retryAfter: number
}

/**
 * Fixed-window counters shared by every instance: `limit` requests per `windowMs` for one
 * `subject` (an address, an account) in one `bucket` (what is being limited).
 */
export interface RateLimiter {
  /** Counts one more request and says whether it is within the limit. */
  hit(
    bucket: string,
    subject: string,
    limit: number,
    windowMs: number,
    now: number,
  ): Promise<RateLimitVerdict>
  /** The current count without adding to it, for limits that count only failures. */
  peek(
    bucket: string,
    subject: string,
    limit: number,
    windowMs: number,
    now: number,
  ): Promise<RateLimitVerdict>
  /**
   * Takes one unit of a budget atomically in the shared store, never held in memory: of any
   * number of concurrent reservations, on any number of instances, at most `limit` are
   * allowed in one window. Give it back with {@link RateLimiter.refund} (with the same
   * `now`) when what it paid for turns out not to count, or when it was refused.
   */
  reserve(
    bucket: string,
    subject: string,
    limit: number,
    windowMs: number,
    now: number,
  ): Promise<RateLimitVerdict>
  /** Gives back one unit taken by {@link RateLimiter.reserve} at `now`, in that window. */
  refund(bucket: string, subject: string, windowMs: number, now: number): Promise<void>
  /**
   * Gives back one unit whose reservation was **allowed** (never one that was refused) and
   * which turned out not to count. The store may keep it for this instance's next
   * reservation of the same counter, or give it back a moment later: the shared count is
   * then briefly higher than what counts, never lower, so the bound of `reserve` holds.
   */
  release(bucket: string, subject: string, windowMs: number, now: number): Promise<void>
  /** Deletes windows that ended before `before`, where counters do not expire by themselves. */
  sweep(before: number): Promise<void>
  /** True when the counters' store answers; the database is checked on its own. */
  ping(): Promise<boolean>
  close(): Promise<void>
}

/** The window `now` falls in, and the seconds left in it. */
export function windowOf(now: number, windowMs: number): { start: number; retryAfter: number } {
  const start = Math.floor(now / windowMs) * windowMs
  return { start, retryAfter: Math.max(1, Math.ceil((start + windowMs - now) / 1000)) }
}

/**
 * Hits of a counter this instance may have counted and not yet written (held in memory, or
 * in a write on its way): 1 % of its limit, at most {@link MAX_BATCH}. Limits under 100
 * (every default but the token endpoint's 300) get none, so each of their hits is written
 * and decided on the shared count, as before. The write starts once half of that is held,
 * so the other half is room for the hits that arrive while it is on its way.
 */
const BATCH_FRACTION = 0.01
const MAX_BATCH = 128
/** Held hits reach the database within this time, whatever their number. */
const FLUSH_MS = 100
/** Counters kept in memory at most; beyond, hits are written one by one. */
const MAX_COUNTERS = 10_000

/**
 * Rows in one insert of held hits, largest first. A write of n counters goes in as many
 * inserts of 64 as fit, then one of each size among n's remaining binary digits, so every
 * insert is one of seven SQL texts. One insert of all n made a new text for every n (26 in
 * one round of the load test, up to {@link MAX_COUNTERS}), each prepared anew and kept.
 */
const CHUNK_SIZES = [64, 32, 16, 8, 4, 2, 1]

/** `items` cut into runs of {@link CHUNK_SIZES}, in order (below 64, each size once at most). */
export function inChunks<T>(items: readonly T[]): T[][] {
  const chunks: T[][] = []
  let at = 0
  for (const size of CHUNK_SIZES) {
    while (items.length - at >= size) {
      chunks.push(items.slice(at, at + size))
      at += size
    }
  }
  return chunks
}

/** What this instance knows of one counter (one bucket, subject and window). */
interface Counter {
  readonly windowStart: number
  readonly windowEnd: number
  /** The shared count the database answered at this instance's last write. */
  known: number
  /** Hits allowed here and not yet written. */
  held: number
  /** Hits allowed here in a write on its way. */
  sending: number
  /** Held hits that start a write: half the hits it may have unwritten. */
  readonly half: number
}

/**
 * Counters kept in the database, so every instance on one PostgreSQL counts together. A hit
 * is decided on the shared count, read back from the upsert that adds it. Only far from a
 * generous limit (100 or more, and 1 % of it or more below) may an instance that has
 * already written to a counter in this window hold further hits in memory, up to 1 % of
 * the limit, and write them within 100 ms, in one statement with every other held counter:
 * the same counts, one write instead of one per request (npm run bench: that write was a
 * third of a refresh on SQLite). One instance counts exactly; N instances together may let
 * through up to about N % of a limit more while their held hits are on their way. Old
 * windows are swept by {@link RateLimiter.sweep}.
 *
 * No request waits for held hits to be written while the counter stays far from its limit:
 * the write starts in the background once half a batch is held, and the hits that arrive
 * while it is on its way are held beside it. Only when a whole batch is held and on its way
 * (the database is slower than the requests) does a hit write them through and wait, as
 * near the limit. Before, every 64th anonymous request waited for an upsert's commit
 * (1.5 % of them, at the p99 of the anonymous catalogue on PostgreSQL in npm run bench).
 */
export function createDatabaseRateLimiter(db: Db): RateLimiter {
  const counters = new Map<string, Counter>()
  /** Released units still counted in the database, by counter: see {@link spareUnits}. */
  const spare = spareUnits(db)
  let timer: NodeJS.Timeout | undefined
  let flushing: Promise<void> | undefined
  /** Closing: held hits wait for the last write, which close() makes itself. */
  let closing = false
  /** The latest time a hit was counted at, to tell which windows are over. */
  let latest = 0

  /** Adds each delta to its counter in one statement; the new counts by key. */
  async function add(deltas: ReadonlyArray<readonly [string, number, number]>) {
    const values = sql.join(
      deltas.map(([key, windowStart, delta]) => sql`(${key}, ${windowStart}, ${delta})`),
    )
    const { rows } = await sql<{ key: string; count: number }>`
      insert into rate_limits (key, window_start, count) values ${values}
      on conflict (key) do update set count = rate_limits.count + excluded.count
      returning key, count`.execute(db)
    return new Map(rows.map((r) => [r.key, Number(r.count)]))
  }

  /** Writes every held hit; those a failure leaves unwritten stay held for the next write. */
  async function flush(): Promise<void> {
    const sent: Array<{ readonly key: string; readonly counter: Counter; readonly delta: number }> =
      []
    for (const [key, counter] of counters) {
      if (counter.held > 0) {
        sent.push({ key, counter, delta: counter.held })
        counter.sending += counter.held
        counter.held = 0
      } else if (counter.windowEnd <= latest && counter.sending === 0) counters.delete(key)
    }
    let written = 0
    try {
      for (const chunk of inChunks(sent)) {
        const counts = await add(chunk.map((s) => [s.key, s.counter.windowStart, s.delta] as const))
        for (const { counter, delta } of chunk) counter.sending -= delta
        written += chunk.length
        for (const [key, count] of counts) {
          const counter = counters.get(key)
          if (counter) counter.known = Math.max(counter.known, count)
        }
      }
    } catch {
      // What was not written is held for the next write; a request written through
      // meanwhile reports the failure.
      for (const { counter, delta } of sent.slice(written)) {
        counter.sending -= delta
        counter.held += delta
      }
    }
  }

  /** Hits of a counter allowed here that the count read back may not hold yet. */
  function unwritten(key: string): number {
    const counter = counters.get(key)
    return counter ? counter.held + counter.sending : 0
  }

  /** Writes the held hits now, or as soon as the write on its way has ended. */
  function write(): void {
    clearTimeout(timer)
    timer = undefined
    if (flushing || closing) return
    flushing = flush().finally(() => {
      flushing = undefined
      let held = false
      for (const counter of counters.values()) {
        if (counter.held >= counter.half) return write()
        held ||= counter.held > 0
      }
      if (held) schedule()
    })
  }

  /** Writes the held hits within {@link FLUSH_MS}. */
  function schedule(): void {
    if (timer || flushing || closing) return
    timer = setTimeout(write, FLUSH_MS)
    timer.unref()
  }

  return {
    async hit(bucket, subject, limit, windowMs, now) {
      latest = Math.max(latest, now)
      const window = windowOf(now, windowMs)
      const key = counterKey(bucket, window.start, subject)
      const batch = Math.min(MAX_BATCH, Math.floor(limit * BATCH_FRACTION))
      let counter = counters.get(key)
      if (
        counter &&
        counter.held + counter.sending < batch &&
        counter.known + counter.sending + counter.held + batch < limit
      ) {
        counter.held += 1
        if (counter.held >= counter.half) write()
        else schedule()
        return { allowed: true, retryAfter: window.retryAfter }
      }
      // A counter's first hit here, near the limit, a small limit, or a batch the database is
      // still writing: written and decided now, with any hits held.
      const held = counter?.held ?? 0
      if (counter) counter.held = 0
      let count: number
      try {
        count = (await add([[key, window.start, held + 1]])).get(key) ?? held + 1
      } catch (error) {
        if (counter) counter.held += held
        throw error
      }
      if (!counter && batch > 0 && counters.size >= MAX_COUNTERS) {
        for (const [k, c] of counters) {
          if (c.held === 0 && c.sending === 0 && c.windowEnd <= latest) counters.delete(k)
        }
      }
      if (!counter && batch > 0 && counters.size < MAX_COUNTERS) {
        counter = {
          windowStart: window.start,
          windowEnd: window.start + windowMs,
          known: 0,
          held: 0,
          sending: 0,
          half: Math.ceil(batch / 2),
        }
        counters.set(key, counter)
      }
      if (counter) counter.known = Math.max(counter.known, count)
      // Hits of a write still on its way may not be in the count read back: counted as if
      // not, so one instance never lets through more than the limit (it may refuse up to
      // those few early, near the limit, while that write is on its way).
      return { allowed: count + unwritten(key) <= limit, retryAfter: window.retryAfter }
    },
    async reserve(bucket, subject, limit, windowMs, now) {
      latest = Math.max(latest, now)
      const window = windowOf(now, windowMs)
      const key = counterKey(bucket, window.start, subject)
      if (spare.take(key)) return { allowed: true, retryAfter: window.retryAfter }
      // The upsert adds and reads back in one statement: atomic on SQLite and PostgreSQL.
      const count = (await add([[key, window.start, 1]])).get(key) ?? 1
      return { allowed: count + unwritten(key) <= limit, retryAfter: window.retryAfter }
    },
    async refund(bucket, subject, windowMs, now) {
      await subtract(db, counterKey(bucket, windowOf(now, windowMs).start, subject), 1)
    },
    async release(bucket, subject, windowMs, now) {
      spare.give(counterKey(bucket, windowOf(now, windowMs).start, subject))
    },
    async peek(bucket, subject, limit, windowMs, now) {
      const window = windowOf(now, windowMs)
      const key = counterKey(bucket, window.start, subject)
      const row = await db
        .selectFrom('rate_limits')
        .select('count')
        .where('key', '=', key)
        .executeTakeFirst()
      const count = Number(row?.count ?? 0) + unwritten(key)
      return { allowed: count < limit, retryAfter: window.retryAfter }
    },
    async sweep(before) {
      await db.deleteFrom('rate_limits').where('window_start', '<', before).execute()
    },
    ping: async () => true,
    async close() {
      closing = true
      clearTimeout(timer)
      timer = undefined
      await flushing
      await flush()
      await spare.close()
    },
  }
}

/** Takes `units` off a stored counter, never below zero: a refund, spare units given back. */
async function subtract(db: Db, key: string, units: number): Promise<void> {
  await db
    .updateTable('rate_limits')
    .set((eb) => ({
      count: sql<number>`case when ${eb.ref('count')} > ${units} then ${eb.ref('count')} - ${units} else 0 end`,
    }))
    .where('key', '=', key)
    .where('count', '>', 0)
    .execute()
}

/** A released unit that no reservation took for this long is given back to the database. */
const SPARE_MS = 100

/**
 * Units of reserved budgets that were allowed, then released (what they paid for did not
 * count), while the database still counts them. The next reservation of the same counter on
 * this instance takes one of them instead of writing: the shared count stays as it was, so
 * the bound holds. A unit that no reservation took for a whole 100 ms is given back (one
 * update a counter), so within 200 ms of its last use. A client that asks for tokens again
 * and again from one address (an integration refreshing its people's tokens) costs no write
 * while it keeps asking, instead of two per request (npm run bench: a refresh was two writes
 * and a read more than the limit server's); giving back every spare unit each 100 ms, in use
 * or not, made the next reservations write again (a tenth of the refreshes under load).
 *
 * Why the bound of {@link RateLimiter.reserve} still holds: call O the units in use (allowed
 * reservations in flight, and failures that count) and S the spare units of every instance.
 * All of them are counted in the database, so each reservation allowed by a write saw
 * O + S ≤ limit; a take moves a unit from S to O, a release from O to S, a give-back lowers
 * S, and a refused reservation joins neither. So O + S ≤ limit at every moment, and O with
 * it. A unit of a refused reservation never becomes spare: that one is refunded at once.
 */
function spareUnits(db: Db) {
  /** Spare units by counter, and the fewest there were since the last give-back. */
  const units = new Map<string, { count: number; fewest: number }>()
  let timer: NodeJS.Timeout | undefined
  let writing: Promise<void> | undefined

  /** Gives back the units no reservation took since the last time (all of them: `all`). */
  async function giveBack(all: boolean): Promise<void> {
    const owed: Array<[string, number]> = []
    for (const [key, spare] of units) {
      const idle = all ? spare.count : spare.fewest
      spare.count -= idle
      spare.fewest = spare.count
      if (spare.count === 0) units.delete(key)
      if (idle > 0) owed.push([key, idle])
    }
    for (const [key, count] of owed) {
      try {
        await subtract(db, key, count)
      } catch {
        // Still counted: the count stays higher than it should for this window, never lower.
      }
    }
  }

  function schedule(): void {
    if (timer) return
    timer = setTimeout(() => {
      timer = undefined
      writing = giveBack(false).finally(() => {
        writing = undefined
        if (units.size > 0) schedule()
      })
    }, SPARE_MS)
    timer.unref()
  }

  return {
    /** Takes one spare unit of `key`; false when there is none. */
    take(key: string): boolean {
      const spare = units.get(key)
      if (spare === undefined || spare.count === 0) return false
      spare.count -= 1
      if (spare.count < spare.fewest) spare.fewest = spare.count
      return true
    },
    give(key: string): void {
      const spare = units.get(key)
      if (spare) spare.count += 1
      // A unit given now was in use until now: not idle since the last give-back.
      else units.set(key, { count: 1, fewest: 0 })
      schedule()
    },
    async close(): Promise<void> {
      clearTimeout(timer)
      timer = undefined
      await writing
      await giveBack(true)
    },
  }
}

/**
 * The row key of one counter. A subject is whatever the client sent (a client_id, an
 * e-mail address); one PostgreSQL cannot store, holding U+0000, is counted by its digest.
 */
function counterKey(bucket: string, windowStart: number, subject: string): string {
  return `${bucket}:${windowStart}:${cannotBeStored(subject) ? `#${digest(subject)}` : subject}`
}
