import { afterEach, describe, expect, it } from 'vitest'
import { parseConfig } from '../../../src/config.js'
import { type Client, createClientStore } from '../../../src/storage/clients.js'
import { type Database, openDatabase } from '../../../src/storage/database.js'
import { migrate } from '../../../src/storage/migrate.js'
import { createTestDatabase, type TestDatabase } from '../../support/databases.js'

let database: TestDatabase | undefined
let opened: Database | undefined
afterEach(async () => {
  await opened?.close()
  await database?.drop()
  opened = undefined
  database = undefined
})

const client: Client = {
  clientId: 'pci_last_use',
  kind: 'self_registered',
  clientName: 'Last Use Tool',
  secretDigest: undefined,
  tokenEndpointAuthMethod: 'none',
  applicationType: 'native',
  redirectUris: ['http://127.0.0.1/callback'],
  grantTypes: ['authorization_code'],
  responseTypes: ['code'],
  scope: undefined,
  idTokenSignedResponseAlg: 'RS256',
  createdAt: 1,
  lastUsedAt: undefined,
}

describe("a client's last use", () => {
  it('is written at the first use, then again only once a minute has passed', async () => {
    database = await createTestDatabase()
    opened = openDatabase(parseConfig({ DATABASE_URL: database.url }).database)
    await migrate(opened)
    const clients = createClientStore(opened.db)
    await clients.insert(client)
    const lastUse = async () => (await clients.find(client.clientId))?.lastUsedAt

    const t0 = 1_800_000_000_000
    await clients.touch(client, t0)
    expect(await lastUse()).toBe(t0)

    // Another instance still holds the client as it read it before that first use.
    await clients.touch(client, t0 + 30_000)
    expect(await lastUse()).toBe(t0)
    await clients.touch((await clients.find(client.clientId)) as Client, t0 + 59_999)
    expect(await lastUse()).toBe(t0)

    await clients.touch((await clients.find(client.clientId)) as Client, t0 + 60_000)
    expect(await lastUse()).toBe(t0 + 60_000)
  })
})
