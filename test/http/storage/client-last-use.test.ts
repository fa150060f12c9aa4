import { afterEach, describe, expect, it } from 'vitest'
import { type Client, createClientStore } from '../../../src/storage/clients.js'
import { openTestStorage, storedClient, type TestStorage } from '../../support/storage.js'

let storage: TestStorage | undefined
afterEach(async () => {
  await storage?.close()
  storage = undefined
})

const client = storedClient('pci_last_use', 'Last Use Tool')

describe("a client's last use", () => {
  it('is written at the first use, then again only once a minute has passed', async () => {
    storage = await openTestStorage()
    const clients = createClientStore(storage.opened.db)
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
