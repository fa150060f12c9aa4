import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAuthorizationRequestStore } from '../../src/storage/authorization-requests.js'
import { createClientStore } from '../../src/storage/clients.js'
import { openTestStorage, storedClient, type TestStorage } from '../support/storage.js'

/**
 * Issue 16, "Unauthenticated writes are bounded": the cap on pending authorization requests
 * per address holds however many arrive at once. Every caller here is in flight together, so
 * a count and an insert that were two separate steps would let all of them count the same
 * number and all insert; on PostgreSQL (DATABASE_URL) the callers use separate connections
 * from two stores, as two instances would.
 */
let storage: TestStorage
beforeAll(async () => {
  storage = await openTestStorage()
  await createClientStore(storage.opened.db).insert(storedClient('pci_cap', 'Cap'))
})
afterAll(async () => {
  await storage?.close()
})

const NOW = Date.UTC(2030, 0, 1)

function row(n: number, address: string) {
  return {
    id_digest: `request-${address}-${n}`,
    client_id: 'pci_cap',
    params: '{}',
    browser_digest: 'browser',
    csrf_digest: 'csrf',
    session_digest: null,
    address_digest: address,
    created_at: NOW,
    expires_at: NOW + 600_000,
    consumed_at: null,
  }
}

describe('pending authorization requests per address', () => {
  it('a burst of 20 concurrent inserts stores exactly the cap of 5', async () => {
    const { opened } = storage
    const stores = [
      createAuthorizationRequestStore(opened.db, opened.dialect),
      createAuthorizationRequestStore(opened.db, opened.dialect),
    ]
    const stored = await Promise.all(
      Array.from({ length: 20 }, (_, n) => stores[n % 2]?.insertCapped(row(n, 'burst'), 5)),
    )
    expect(stored.filter(Boolean)).toHaveLength(5)
    const rows = await opened.db
      .selectFrom('authorization_requests')
      .select('id_digest')
      .where('address_digest', '=', 'burst')
      .execute()
    expect(rows).toHaveLength(5)
  })

  it('counts only undecided, unexpired requests of that address', async () => {
    const { opened } = storage
    const store = createAuthorizationRequestStore(opened.db, opened.dialect)
    expect(await store.insertCapped(row(0, 'other'), 1)).toBe(true)
    expect(await store.insertCapped(row(1, 'other'), 1)).toBe(false)
    expect(await store.insertCapped(row(0, 'third'), 1)).toBe(true)
    expect(await store.consume('request-other-0', NOW)).toBe(true)
    expect(await store.insertCapped(row(2, 'other'), 1)).toBe(true)
  })
})
