import { afterEach, describe, expect, it } from 'vitest'
import { createClientStore } from '../../../src/storage/clients.js'
import type { Database } from '../../../src/storage/database.js'
import { createGrantStore } from '../../../src/storage/grants.js'
import type { AccessTokenTable, RefreshTokenTable } from '../../../src/storage/tables/oauth.js'
import { createUserStore } from '../../../src/storage/users.js'
import { postgresAdminUrl } from '../../support/databases.js'
import {
  openTestStorage,
  storedClient,
  type TestStorage,
  tokenRows,
} from '../../support/storage.js'

/**
 * The token endpoint's write (grant-tokens.ts: one statement on PostgreSQL, compiled once per
 * shape from eighteen values in a fixed order; a transaction on SQLite) stores every column
 * where it belongs. Every value here differs from every other of its type, and the access and
 * refresh tokens belong to different grants, clients and people, so a value sent to the wrong
 * column shows.
 */
let storage: TestStorage | undefined
afterEach(async () => {
  await storage?.close()
  storage = undefined
})

const T0 = 1_800_000_000_000

async function seeded(db: Database['db']) {
  for (const n of [1, 2]) {
    await createUserStore(db).insert({
      id: `usr_${n}`,
      email: `person${n}@example.org`,
      name: `Person ${n}`,
      role: 'editor',
      passwordHash: 'not-a-real-hash',
      now: T0,
    })
    await createClientStore(db).insert(storedClient(`pci_${n}`, `Tool ${n}`))
  }
  const grants = createGrantStore(db, postgresAdminUrl ? 'postgres' : 'sqlite')
  for (const n of [1, 2]) {
    await grants.insertGrantWithCode(
      {
        id: `grt_${n}`,
        client_id: `pci_${n}`,
        user_id: `usr_${n}`,
        scope: `grant-scope-${n}`,
        resource: `https://school.example/${n}`,
        created_at: T0,
        last_used_at: null,
        expires_at: T0 + 10,
        revoked_at: null,
      },
      {
        code_digest: `code-${n}`,
        grant_id: `grt_${n}`,
        client_id: `pci_${n}`,
        user_id: `usr_${n}`,
        redirect_uri: 'http://127.0.0.1/callback',
        code_challenge: 'challenge',
        scope: `grant-scope-${n}`,
        resource: `https://school.example/${n}`,
        nonce: null,
        auth_time: T0,
        created_at: T0,
        expires_at: T0 + 60_000,
        consumed_at: null,
      },
    )
  }
  return grants
}

const access = (k: number): AccessTokenTable => ({
  token_digest: `access-${k}`,
  grant_id: 'grt_1',
  client_id: 'pci_1',
  user_id: 'usr_1',
  scope: `access-scope-${k}`,
  audience: `audience-${k}`,
  created_at: T0 + 100 * k + 1,
  expires_at: T0 + 100 * k + 2,
})
const refresh = (k: number): RefreshTokenTable => ({
  token_digest: `refresh-${k}`,
  grant_id: 'grt_2',
  client_id: 'pci_2',
  scope: `refresh-scope-${k}`,
  created_at: T0 + 100 * k + 3,
  expires_at: T0 + 100 * k + 4,
  rotated_at: null,
})

describe('the token write', () => {
  it('stores each value in its own column, with and without a refresh token', async () => {
    storage = await openTestStorage()
    const { db } = storage.opened
    const grants = await seeded(db)

    expect(await grants.insertTokens('grt_1', access(1), undefined, T0 + 50)).toBe(true)
    expect(await grants.insertTokens('grt_2', access(2), refresh(2), T0 + 60)).toBe(true)

    const stored = await tokenRows(db)
    expect(stored.access).toEqual([access(1), access(2)])
    expect(stored.refresh).toEqual([refresh(2)])
    // The grant named, used now, and living as long as the longest token issued under it.
    expect(stored.grants).toEqual([
      { id: 'grt_1', last_used_at: T0 + 50, expires_at: access(1).expires_at, revoked_at: null },
      { id: 'grt_2', last_used_at: T0 + 60, expires_at: refresh(2).expires_at, revoked_at: null },
    ])
  })

  it('rotates a refresh token once: the second rotation of it stores nothing', async () => {
    storage = await openTestStorage()
    const { db } = storage.opened
    const grants = await seeded(db)
    await grants.insertTokens('grt_2', access(2), refresh(2), T0 + 60)

    expect(await grants.insertTokens('grt_2', access(3), refresh(3), T0 + 70, 'refresh-2')).toBe(
      true,
    )
    expect(await grants.insertTokens('grt_2', access(4), refresh(4), T0 + 80, 'refresh-2')).toBe(
      false,
    )

    const stored = await tokenRows(db)
    expect(stored.access).toEqual([access(2), access(3)])
    expect(stored.refresh).toEqual([{ ...refresh(2), rotated_at: T0 + 70 }, refresh(3)])
    expect(stored.grants[1]).toEqual({
      id: 'grt_2',
      last_used_at: T0 + 70,
      expires_at: refresh(3).expires_at,
      revoked_at: null,
    })
  })
})
