import { sql } from 'kysely'
import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import { createClientStore } from '../../../src/storage/clients.js'
import { compiledQuery } from '../../../src/storage/compiled-query.js'
import type { Database } from '../../../src/storage/database.js'
import { needsPostgres } from '../../support/skips.js'
import { openTestStorage, storedClient, type TestStorage } from '../../support/storage.js'

let storage: TestStorage | undefined
afterEach(async () => {
  await storage?.close()
  storage = undefined
})

/** One connection, so that its session's prepared statements can be read back. */
async function openOneConnection(): Promise<{ opened: Database; url: string }> {
  storage = await openTestStorage(1)
  return storage
}

const client = storedClient('pci_prepared', 'Prepared Tool')

async function preparedTexts(db: Database['db']): Promise<string[]> {
  const { rows } = await sql<{ statement: string }>`
    select statement from pg_prepared_statements`.execute(db)
  return rows.map((r) => r.statement)
}

describe.skipIf(needsPostgres('prepared statements'))('hot statements on PostgreSQL', () => {
  it('are prepared once per connection under a name, other queries are not', async () => {
    const { opened } = await openOneConnection()
    const clients = createClientStore(opened.db)
    await clients.insert(client)
    expect(await clients.find(client.clientId)).toMatchObject({ clientName: 'Prepared Tool' })
    expect(await clients.find(client.clientId)).toMatchObject({ clientName: 'Prepared Tool' })
    expect(await clients.list()).toHaveLength(1)

    const texts = await preparedTexts(opened.db)
    // The compiled insert and lookup are there, once each; the listing (built per call) is not.
    expect(texts.filter((t) => t.startsWith('insert into "clients"'))).toHaveLength(1)
    expect(texts.filter((t) => t.startsWith('select * from "clients" where'))).toHaveLength(1)
    expect(texts.filter((t) => t.includes('order by'))).toEqual([])
  })

  it('are sent unprepared inside a transaction, where a failure could not be retried', async () => {
    const { opened } = await openOneConnection()
    await createClientStore(opened.db).insert(client)
    const lookup = (t: string) => t.startsWith('select * from "clients" where')

    await opened.db.transaction().execute(async (trx) => {
      expect(await createClientStore(trx).find(client.clientId)).toBeDefined()
    })
    expect((await preparedTexts(opened.db)).filter(lookup)).toEqual([])

    expect(await createClientStore(opened.db).find(client.clientId)).toBeDefined()
    expect((await preparedTexts(opened.db)).filter(lookup)).toHaveLength(1)
  })

  it('keep answering after another instance adds a column to the table they read', async () => {
    const { opened, url } = await openOneConnection()
    const clients = createClientStore(opened.db)
    await clients.insert(client)
    await clients.find(client.clientId)

    // What a newer Portico's migration does while this one still runs (a rolling upgrade).
    const other = new pg.Client({ connectionString: url })
    await other.connect()
    try {
      await other.query('alter table clients add column added_later text')
    } finally {
      await other.end()
    }

    expect(await clients.find(client.clientId)).toMatchObject({ clientName: 'Prepared Tool' })
    expect(await clients.find(client.clientId)).toMatchObject({ clientName: 'Prepared Tool' })
  })

  it('keep answering after the driver failed to send a value and closed the statement', async () => {
    const { opened } = await openOneConnection()
    await createClientStore(opened.db).insert(client)
    const byName = compiledQuery((db: Database['db'], name: unknown) =>
      db
        .selectFrom('clients')
        .select('client_id')
        .where('client_name', '=', name as string),
    )
    expect(await byName(opened.db, 'Prepared Tool')).toEqual([{ client_id: client.clientId }])
    // A value node-postgres cannot serialise: it refuses it, and closes the named statement.
    const circular: Record<string, unknown> = {}
    circular.self = circular
    await expect(byName(opened.db, circular)).rejects.toThrow()
    expect(await byName(opened.db, 'Prepared Tool')).toEqual([{ client_id: client.clientId }])
  })
})
