import { afterEach, describe, expect, it } from 'vitest'
import {
  compiledInsert,
  compiledQuery,
  pairedRead,
  pairedSql,
} from '../../../src/storage/compiled-query.js'
import type { Db } from '../../../src/storage/schema.js'
import { openTestStorage, type TestStorage } from '../../support/storage.js'

/**
 * Two reads run as one statement (compiled-query.ts `pairedRead`): each read's own values in
 * its own placeholders, each row apart though both have the same column names, a read that
 * found nothing undefined, on the database's handle as inside a transaction.
 */
let storage: TestStorage | undefined
afterEach(async () => {
  await storage?.close()
  storage = undefined
})

const counterAfter = compiledQuery((db: Db, key: string, after: number) =>
  db
    .selectFrom('rate_limits')
    .select(['key', 'count', 'window_start'])
    .where('key', '=', key)
    .where('window_start', '>', after),
)
const counter = compiledQuery((db: Db, key: string) =>
  db.selectFrom('rate_limits').selectAll().where('key', '=', key),
)
const insertCounter = compiledInsert('rate_limits')
const FIRST = ['key', 'count', 'window_start'] as const

describe('pairedSql', () => {
  it('numbers the second read’s PostgreSQL placeholders on after the first’s', () => {
    expect(pairedSql('select $1, $2', 2, ['a', 'b"c'], 'select $1 where x = $2')).toBe(
      'select "a"."a" as "paired.a", "a"."b""c" as "paired.b""c", "b".* from (select 1) as "one" ' +
        'left join (select $1, $2) as "a" on true left join (select $3 where x = $4) as "b" on true',
    )
  })

  it('leaves SQLite’s positional placeholders as they are', () => {
    expect(pairedSql('select ?', 1, ['a'], 'select ?')).toContain('left join (select ?) as "b"')
  })
})

/** The counter of `first` if its window started after `after`, with the counter of `second`. */
const pair = (db: Db, first: string, after: number, second: string) =>
  pairedRead(db, counterAfter.statement(db, first, after), FIRST, counter.statement(db, second))

describe('pairedRead', () => {
  it('gives each read its own values and its own row, though their columns share names', async () => {
    storage = await openTestStorage()
    const { db } = storage.opened
    await insertCounter(db, { key: 'first', window_start: 10, count: 1 })
    await insertCounter(db, { key: 'second', window_start: 20, count: 2 })
    const both = await pair(db, 'first', 5, 'second')
    expect(both).toEqual({
      first: { key: 'first', count: 1, window_start: 10 },
      second: { key: 'second', window_start: 20, count: 2 },
    })
    // The first read's second value is a condition of its own: 10 is not after 10.
    expect(await pair(db, 'first', 10, 'second')).toEqual({
      first: undefined,
      second: both.second,
    })
    expect(await pair(db, 'none', 0, 'none')).toEqual({ first: undefined, second: undefined })
    expect(await pair(db, 'second', 0, 'none')).toEqual({
      first: { key: 'second', count: 2, window_start: 20 },
      second: undefined,
    })
  })

  it('reads inside a transaction what the transaction wrote', async () => {
    storage = await openTestStorage()
    const { db } = storage.opened
    await db.transaction().execute(async (trx) => {
      await insertCounter(trx, { key: 'in-transaction', window_start: 1, count: 9 })
      const read = await pair(trx, 'in-transaction', 0, 'in-transaction')
      expect(read.first?.count).toBe(9)
      expect(read.second?.count).toBe(9)
    })
  })
})
