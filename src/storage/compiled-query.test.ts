import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compiledInsert, compiledQuery } from './compiled-query.js'
import { type Database, openDatabase } from './database.js'
import { migrate } from './migrate.js'
import type { Schema } from './schema.js'

describe('a query compiled once runs with each call’s own arguments', () => {
  let database: Database

  beforeAll(async () => {
    database = openDatabase({ dialect: 'sqlite', file: ':memory:' })
    await migrate(database, 0)
    await sql`insert into rate_limits (key, window_start, count) values ('a', 1, 10), ('b', 2, 20), ('c', 3, 30)`.execute(
      database.db,
    )
  })
  afterAll(() => database.close())

  it('binds every call’s arguments, never those of an earlier call', async () => {
    const find = compiledQuery((db, key: string, after: number) =>
      db
        .selectFrom('rate_limits')
        .select(['key', 'count'])
        .where('key', '=', key)
        .where('window_start', '>', after),
    )
    expect(await find(database.db, 'a', 0)).toEqual([{ key: 'a', count: 10 }])
    expect(await find(database.db, 'b', 0)).toEqual([{ key: 'b', count: 20 }])
    expect(await find(database.db, 'b', 2)).toEqual([])
    expect(await find(database.db, "a' or 1=1 --", 0)).toEqual([])
  })

  it('keeps the values the query itself fixes', async () => {
    const find = compiledQuery((db, after: number) =>
      db
        .selectFrom('rate_limits')
        .select('key')
        .where('key', 'in', ['a', 'c'])
        .where('window_start', '>', after)
        .orderBy('key'),
    )
    expect(await find(database.db, 0)).toEqual([{ key: 'a' }, { key: 'c' }])
    expect(await find(database.db, 1)).toEqual([{ key: 'c' }])
  })

  it('refuses a query in which an argument is not a bound parameter', async () => {
    const unused = compiledQuery((db, _key: string) => db.selectFrom('rate_limits').select('key'))
    await expect(unused(database.db, 'a')).rejects.toThrow(/not a bound parameter/)
    const inlined = compiledQuery((db, key: string) =>
      db.selectFrom('rate_limits').select(sql.lit(key).as('k')),
    )
    await expect(inlined(database.db, 'a')).rejects.toThrow(/not a bound parameter/)
  })
})

describe('an insert compiled once per list of columns', () => {
  let database: Database
  // A table of the test's own: a column with a default shows what a left-out column gets.
  const insert = compiledInsert('insert_rows' as keyof Schema) as (
    db: Database['db'],
    row: Record<string, unknown>,
  ) => Promise<void>
  const rows = async () =>
    (await sql<Record<string, unknown>>`select * from insert_rows order by id`.execute(database.db))
      .rows

  beforeAll(async () => {
    database = openDatabase({ dialect: 'sqlite', file: ':memory:' })
    await sql`create table insert_rows (id text primary key, label text, n integer not null default 7)`.execute(
      database.db,
    )
  })
  afterAll(() => database.close())

  it('stores each call’s own values, whatever order the row lists its columns in', async () => {
    await insert(database.db, { id: 'a', label: 'first', n: 1 })
    await insert(database.db, { id: 'b', label: "b'); drop table insert_rows; --", n: 2 })
    await insert(database.db, { n: 3, label: null, id: 'c' })
    expect(await rows()).toEqual([
      { id: 'a', label: 'first', n: 1 },
      { id: 'b', label: "b'); drop table insert_rows; --", n: 2 },
      { id: 'c', label: null, n: 3 },
    ])
  })

  it('leaves out a column whose value is undefined, so its default applies', async () => {
    await insert(database.db, { id: 'd', label: 'defaulted', n: undefined })
    await insert(database.db, { id: 'e', label: 'given', n: 5 })
    expect((await rows()).slice(3)).toEqual([
      { id: 'd', label: 'defaulted', n: 7 },
      { id: 'e', label: 'given', n: 5 },
    ])
  })

  it('fails as the insert would, inside a transaction too', async () => {
    await expect(insert(database.db, { id: 'a', label: 'again', n: 1 })).rejects.toThrow(/UNIQUE/)
    await expect(
      database.db.transaction().execute(async (trx) => {
        await insert(trx, { id: 'f', label: 'rolled back', n: 1 })
        throw new Error('abort')
      }),
    ).rejects.toThrow('abort')
    expect((await rows()).map((r) => r.id)).not.toContain('f')
  })
})
