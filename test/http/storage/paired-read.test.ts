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

describe('pairedRead', () => {
  it('gives each read its own values and its own row, though their columns share names', async () => {
    storage = await openTestStorage()
    const { db } = storage.opened
    await insertCounter(db, { key: 'first', window_start: 10, count: 1 })
    await insertCounter(db, { key: 'second', window_start: 20, count: 2 })
    const both = await pairedRead(
      db,
      counterAfter.statement(db, 'first', 5),
      FIRST,
      counter.statement(db, 'second'),
    )
    expect(both).toEqual({
      first: { key: 'first', count: 1, window_start: 10 },
      second: { key: 'second', window_start: 20, count: 2 },
    })
    // The first read's second value is a condition of its own: 10 is not after 10.
    const notAfter = await pairedRead(
      db,
      counterAfter.statement(db, 'first', 10),
      FIRST,
      counter.statement(db, 'second'),
    )
    expect(notAfter).toEqual({ first: undefined, second: both.second })
    const neither = await pairedRead(
      db,
      counterAfter.statement(db, 'none', 0),
      FIRST,
      counter.statement(db, 'none'),
    )
    expect(neither).toEqual({ first: undefined, second: undefined })
    const firstOnly = await pairedRead(
      db,
      counterAfter.statement(db, 'second', 0),
      FIRST,
      counter.statement(db, 'none'),
    )
    expect(firstOnly).toEqual({
      first: { key: 'second', count: 2, window_start: 20 },
      second: undefined,
    })
  })

  it('reads inside a transaction what the transaction wrote', async () => {
    storage = await openTestStorage()
    const { db } = storage.opened
    await db.transaction().execute(async (trx) => {
      await insertCounter(trx, { key: 'in-transaction', window_start: 1, count: 9 })
      const pair = await pairedRead(
        trx,
        counterAfter.statement(trx, 'in-transaction', 0),
        FIRST,
        counter.statement(trx, 'in-transaction'),
      )
      expect(pair.first?.count).toBe(9)
      expect(pair.second?.count).toBe(9)
    })
  })
})
