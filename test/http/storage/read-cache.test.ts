import { sql } from 'kysely'
import { afterEach, describe, expect, it } from 'vitest'
import { parseConfig } from '../../../src/config.js'
import { createClientStore } from '../../../src/storage/clients.js'
import { compiledQuery } from '../../../src/storage/compiled-query.js'
import { type Database, openDatabase } from '../../../src/storage/database.js'
import { createGrantStore } from '../../../src/storage/grants.js'
import type { Db } from '../../../src/storage/schema.js'
import { createUserStore } from '../../../src/storage/users.js'
import { postgresAdminUrl } from '../../support/databases.js'
import { openTestStorage, storedClient, type TestStorage } from '../../support/storage.js'

let storage: TestStorage | undefined
let other: Database | undefined
afterEach(async () => {
  await other?.close()
  other = undefined
  await storage?.close()
  storage = undefined
})

const T0 = 1_800_000_000_000
const HOUR = 3_600_000
const TOKEN = 'digest-of-a-live-access-token-0000000000000'

/** A person, a client, a grant and one access token valid for an hour from T0. */
async function seed(db: Database['db']): Promise<void> {
  await createUserStore(db).insert({
    id: 'usr_cache',
    email: 'cache@example.org',
    name: 'Cache Person',
    role: 'editor',
    passwordHash: 'not-a-real-hash',
    now: T0,
  })
  await createClientStore(db).insert(storedClient('pci_cache', 'Cache Tool'))
  const grants = createGrantStore(db, postgresAdminUrl ? 'postgres' : 'sqlite')
  const grant = {
    id: 'grt_cache',
    client_id: 'pci_cache',
    user_id: 'usr_cache',
    scope: 'openid account:read',
    resource: 'https://school.example',
    created_at: T0,
    last_used_at: null,
    expires_at: T0 + HOUR,
    revoked_at: null,
  }
  await grants.insertGrantWithCode(grant, {
    code_digest: 'digest-of-a-code',
    grant_id: grant.id,
    client_id: grant.client_id,
    user_id: grant.user_id,
    redirect_uri: 'http://127.0.0.1/callback',
    code_challenge: 'challenge',
    scope: grant.scope,
    resource: grant.resource,
    nonce: null,
    auth_time: T0,
    created_at: T0,
    expires_at: T0 + 60_000,
    consumed_at: null,
  })
  const stored = await grants.insertTokens(
    grant.id,
    {
      token_digest: TOKEN,
      grant_id: grant.id,
      client_id: grant.client_id,
      user_id: grant.user_id,
      scope: grant.scope,
      audience: grant.resource,
      created_at: T0,
      expires_at: T0 + HOUR,
    },
    undefined,
    T0,
  )
  expect(stored).toBe(true)
}

const clientRow = compiledQuery((db: Db, clientId: string) =>
  db.selectFrom('clients').selectAll().where('client_id', '=', clientId),
)

const revokeGrant = (db: Database['db']) =>
  sql`update grants set revoked_at = ${T0} where id = 'grt_cache'`.execute(db)

/** A seeded SQLite database, and the grant and client stores as main.ts makes them on it. */
async function seededStores() {
  storage = await openTestStorage()
  const { opened } = storage
  await seed(opened.db)
  const version = () => opened.dataVersion()
  return {
    opened,
    url: storage.url,
    grants: createGrantStore(opened.db, 'sqlite', version),
    clients: createClientStore(opened.db, version),
  }
}

describe('reads kept in memory, whatever the engine', () => {
  // The version is the test's: a write it does not announce shows whether a read was kept.
  it('serves a live token from memory while the version stays put, and reads again once it moves', async () => {
    storage = await openTestStorage()
    const { db } = storage.opened
    await seed(db)
    let version = 1
    const grants = createGrantStore(db, storage.opened.dialect, () => version)

    expect((await grants.findLiveAccessToken(TOKEN, T0))?.user.id).toBe('usr_cache')
    await revokeGrant(db)
    expect((await grants.findLiveAccessToken(TOKEN, T0))?.user.id).toBe('usr_cache')
    version += 1
    expect(await grants.findLiveAccessToken(TOKEN, T0)).toBeUndefined()
  })

  it('reads a token with a companion read as it reads it alone, the companion only when not kept', async () => {
    storage = await openTestStorage()
    const { db } = storage.opened
    await seed(db)
    const client = () => clientRow.statement(db, 'pci_cache')
    // Nothing kept (PostgreSQL): the pair is read every time, and the token is the same.
    const reading = createGrantStore(db, storage.opened.dialect, () => undefined)
    const alone = await reading.findLiveAccessToken(TOKEN, T0)
    expect(alone?.user.id).toBe('usr_cache')
    const paired = await reading.findLiveAccessTokenWith(TOKEN, T0, client)
    expect(paired.live).toEqual(alone)
    expect(paired.companion).toMatchObject({ client_id: 'pci_cache', client_name: 'Cache Tool' })
    const missing = await reading.findLiveAccessTokenWith(TOKEN, T0, () =>
      clientRow.statement(db, 'pci_none'),
    )
    expect(missing).toEqual({ live: alone, companion: null })
    expect(await reading.findLiveAccessTokenWith('unknown', T0, client)).toMatchObject({
      live: undefined,
      companion: { client_id: 'pci_cache' },
    })
    // Kept in memory (SQLite): read with its companion once, then from memory alone.
    const keeping = createGrantStore(db, storage.opened.dialect, () => 1)
    expect((await keeping.findLiveAccessTokenWith(TOKEN, T0, client)).companion).toBeDefined()
    expect(await keeping.findLiveAccessTokenWith(TOKEN, T0, client)).toEqual({ live: alone })
    expect(await keeping.findLiveAccessTokenWith(TOKEN, T0 + HOUR, client)).toEqual({
      live: undefined,
    })
  })

  it('never serves a kept token at or past its expiry', async () => {
    storage = await openTestStorage()
    await seed(storage.opened.db)
    const grants = createGrantStore(storage.opened.db, storage.opened.dialect, () => 1)
    expect(await grants.findLiveAccessToken(TOKEN, T0 + HOUR - 1)).toBeDefined()
    expect(await grants.findLiveAccessToken(TOKEN, T0 + HOUR)).toBeUndefined()
  })

  it('keeps no absence: a token unknown at first is found once stored', async () => {
    storage = await openTestStorage()
    const { db } = storage.opened
    const grants = createGrantStore(db, storage.opened.dialect, () => 1)
    const clients = createClientStore(db, () => 1)
    expect(await grants.findLiveAccessToken(TOKEN, T0)).toBeUndefined()
    expect(await clients.find('pci_cache')).toBeUndefined()
    await seed(db)
    expect(await grants.findLiveAccessToken(TOKEN, T0)).toBeDefined()
    expect(await clients.find('pci_cache')).toBeDefined()
  })

  it('serves a client from memory while the version stays put', async () => {
    storage = await openTestStorage()
    const { db } = storage.opened
    await seed(db)
    let version = 1
    const clients = createClientStore(db, () => version)
    expect((await clients.find('pci_cache'))?.clientName).toBe('Cache Tool')
    await sql`update clients set client_name = 'Renamed' where client_id = 'pci_cache'`.execute(db)
    expect((await clients.find('pci_cache'))?.clientName).toBe('Cache Tool')
    version += 1
    expect((await clients.find('pci_cache'))?.clientName).toBe('Renamed')
  })
})

describe.skipIf(postgresAdminUrl !== undefined)('the data version of SQLite', () => {
  it('stays put across reads and moves at every write of this connection', async () => {
    storage = await openTestStorage()
    const { db } = storage.opened
    const dataVersion = () => storage?.opened.dataVersion() ?? Number.NaN
    const before = dataVersion()
    expect(before).toBeGreaterThanOrEqual(0)
    await sql`select count(*) from users`.execute(db)
    expect(dataVersion()).toBe(before)
    await seed(db)
    const seeded = dataVersion()
    expect(seeded).toBeGreaterThan(before)
    // A write that changes no row still counts: what it would have changed is unknown.
    await sql`update users set name = 'x' where id = 'nobody'`.execute(db)
    expect(dataVersion()).toBeGreaterThan(seeded)
  })

  it('moves when another connection commits: a grant revoked by another process ends the token at once', async () => {
    const { grants, url } = await seededStores()
    expect(await grants.findLiveAccessToken(TOKEN, T0)).toBeDefined()
    expect(await grants.findLiveAccessToken(TOKEN, T0)).toBeDefined()

    // What a CLI command does: its own connection to the same file.
    other = openDatabase(parseConfig({ DATABASE_URL: url }).database)
    await revokeGrant(other.db)
    expect(await grants.findLiveAccessToken(TOKEN, T0)).toBeUndefined()
  })

  it('moves when another connection disables the person or deletes the client', async () => {
    const { grants, clients, url } = await seededStores()
    expect(await grants.findLiveAccessToken(TOKEN, T0)).toBeDefined()
    expect(await clients.find('pci_cache')).toBeDefined()

    other = openDatabase(parseConfig({ DATABASE_URL: url }).database)
    await sql`update users set disabled_at = ${T0} where id = 'usr_cache'`.execute(other.db)
    expect(await grants.findLiveAccessToken(TOKEN, T0)).toBeUndefined()
    await sql`delete from clients where client_id = 'pci_cache'`.execute(other.db)
    expect(await clients.find('pci_cache')).toBeUndefined()
  })

  it('is not known while a transaction is open: a commit made meanwhile is never missed', async () => {
    const { opened, grants, clients, url } = await seededStores()
    expect(await grants.findLiveAccessToken(TOKEN, T0)).toBeDefined()
    expect(await clients.find('pci_cache')).toBeDefined()

    // Another request's transaction has read, and waits for something before it writes:
    // SQLite's data_version would answer from its snapshot, blind to the commit below.
    let proceed = () => {}
    const waiting = new Promise<void>((resolve) => {
      proceed = resolve
    })
    let hasRead = () => {}
    const read = new Promise<void>((resolve) => {
      hasRead = resolve
    })
    const transaction = opened.db.transaction().execute(async (trx) => {
      await trx.selectFrom('users').select('id').execute()
      hasRead()
      await waiting
    })
    await read
    expect(opened.dataVersion()).toBeUndefined()
    other = openDatabase(parseConfig({ DATABASE_URL: url }).database)
    await revokeGrant(other.db)
    await sql`delete from clients where client_id = 'pci_cache'`.execute(other.db)

    // Both lookups wait for the transaction, then read what the other connection committed.
    const lookups = Promise.all([grants.findLiveAccessToken(TOKEN, T0), clients.find('pci_cache')])
    proceed()
    await transaction
    expect(await lookups).toEqual([undefined, undefined])
  })

  it('keeps a value under the version taken before its read, so a write racing it is never hidden', async () => {
    const { opened, grants } = await seededStores()
    // The revocation runs right after the lookup's read, before the lookup keeps its row.
    const [raced] = await Promise.all([
      grants.findLiveAccessToken(TOKEN, T0),
      revokeGrant(opened.db),
    ])
    expect(raced).toBeDefined()
    expect(await grants.findLiveAccessToken(TOKEN, T0)).toBeUndefined()
  })

  it('hands out kept values frozen, so no caller can change what the next one gets', async () => {
    const { grants, clients } = await seededStores()
    const live = await grants.findLiveAccessToken(TOKEN, T0)
    const client = await clients.find('pci_cache')
    for (const value of [live, live?.token, live?.user, client, client?.redirectUris])
      expect(Object.isFrozen(value)).toBe(true)
  })
})

describe.runIf(postgresAdminUrl !== undefined)('PostgreSQL', () => {
  it('has no data version: other instances write unseen, so every read goes to the database', async () => {
    storage = await openTestStorage()
    await seed(storage.opened.db)
    expect(storage.opened.dataVersion()).toBeUndefined()
  })
})
