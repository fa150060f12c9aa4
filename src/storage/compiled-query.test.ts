import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compiledQuery } from './compiled-query.js'
import { type Database, openDatabase } from './database.js'
import { migrate } from './migrate.js'

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
