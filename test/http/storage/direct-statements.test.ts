import { afterEach, describe, expect, it } from 'vitest'
import { compiledInsert, compiledQuery } from '../../../src/storage/compiled-query.js'
import type { Db } from '../../../src/storage/schema.js'
import { openTestStorage, type TestStorage } from '../../support/storage.js'

/**
 * Compiled statements run straight on the driver outside transactions (compiled-query.ts,
 * `runDirectly`). They must behave exactly as through Kysely: never inside another request's
 * open transaction, counted as writes by SQLite's read caches, failing once the database is
 * closed.
 */
let storage: TestStorage | undefined
afterEach(async () => {
  await storage?.close()
  storage = undefined
})

const countOf = compiledQuery((db: Db, key: string) =>
  db.selectFrom('rate_limits').select('count').where('key', '=', key),
)
const insertCounter = compiledInsert('rate_limits')

describe('compiled statements run directly', () => {
  it('never read what another request’s open transaction has not committed', async () => {
    storage = await openTestStorage()
    const { db } = storage.opened
    let readDuring: Promise<unknown[]> | undefined
    await expect(
      db.transaction().execute(async (trx) => {
        await insertCounter(trx, { key: 'uncommitted', window_start: 1, count: 7 })
        // Not awaited: on SQLite it must wait for the transaction, which then rolls back.
        readDuring = countOf(db, 'uncommitted')
        throw new Error('roll back')
      }),
    ).rejects.toThrow('roll back')
    expect(await readDuring).toEqual([])
    expect(await countOf(db, 'uncommitted')).toEqual([])
  })

  it('see what was committed, and their writes move SQLite’s data version', async () => {
    storage = await openTestStorage()
    const { opened } = storage
    const before = opened.dataVersion()
    await insertCounter(opened.db, { key: 'written', window_start: 1, count: 3 })
    if (before !== undefined) expect(opened.dataVersion()).not.toBe(before)
    expect(await countOf(opened.db, 'written')).toEqual([{ count: 3 }])
    await expect(
      insertCounter(opened.db, { key: 'written', window_start: 1, count: 4 }),
    ).rejects.toThrow(/unique|duplicate/i)
  })

  it('fail, never hang, once the database is closed', async () => {
    storage = await openTestStorage()
    const { opened } = storage
    expect(await countOf(opened.db, 'none')).toEqual([])
    await storage.close()
    storage = undefined
    await expect(countOf(opened.db, 'none')).rejects.toThrow()
  })
})
