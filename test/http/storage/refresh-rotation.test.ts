import { afterEach, describe, expect, it } from 'vitest'
import { createClientStore } from '../../../src/storage/clients.js'
import type { Database } from '../../../src/storage/database.js'
import { createGrantStore } from '../../../src/storage/grants.js'
import type { RefreshRotation } from '../../../src/storage/refresh-rotation.js'
import { createUserStore } from '../../../src/storage/users.js'
import { postgresAdminUrl } from '../../support/databases.js'
import {
  openTestStorage,
  storedClient,
  type TestStorage,
  tokenRows,
} from '../../support/storage.js'

/**
 * The refresh grant in one PostgreSQL statement (refresh-rotation.ts): it rotates only what
 * the grant itself would accept, stores each value in its own column, and of concurrent
 * refreshes of one token exactly one wins. Every check gets a case of its own that passes
 * every other check, so a check that were missing would show as a rotation here.
 */
let storage: TestStorage | undefined
afterEach(async () => {
  await storage?.close()
  storage = undefined
})

const T0 = 1_800_000_000_000
const NOW = T0 + 1_000
/** The grant's absolute lifetime: its end (T0 + 5,000) falls before the new token's lifetime. */
const GRANT_MAXIMUM_MS = 5_000

const rotation = (overrides: Partial<RefreshRotation> = {}): RefreshRotation => ({
  clientId: 'pci_public',
  rotates: 'refresh-old',
  now: NOW,
  grantMaximumMs: GRANT_MAXIMUM_MS,
  accessDigest: 'access-new',
  accessExpires: NOW + 300,
  refreshDigest: 'refresh-new',
  refreshLifetimeEnd: NOW + 9_000,
  ...overrides,
})

async function seeded(db: Database['db']) {
  await createUserStore(db).insert({
    id: 'usr_1',
    email: 'person@example.org',
    name: 'Person',
    role: 'editor',
    passwordHash: 'not-a-real-hash',
    now: T0,
  })
  const clients = createClientStore(db)
  const refreshing = ['authorization_code', 'refresh_token']
  await clients.insert({ ...storedClient('pci_public', 'Public'), grantTypes: refreshing })
  await clients.insert({ ...storedClient('pci_other', 'Other'), grantTypes: refreshing })
  await clients.insert({ ...storedClient('pci_no_refresh', 'No refresh') })
  await clients.insert({
    ...storedClient('pci_confidential', 'Confidential'),
    grantTypes: refreshing,
    tokenEndpointAuthMethod: 'client_secret_post',
    secretDigest: 'secret-digest',
  })
  const grants = createGrantStore(db, 'postgres')
  for (const clientId of ['pci_public', 'pci_other', 'pci_no_refresh', 'pci_confidential']) {
    const grantId = `grt_${clientId}`
    await grants.insertGrantWithCode(
      {
        id: grantId,
        client_id: clientId,
        user_id: 'usr_1',
        scope: 'grant-scope',
        resource: 'https://school.example/api',
        created_at: T0,
        last_used_at: null,
        expires_at: T0 + 2_000,
        revoked_at: null,
      },
      {
        code_digest: `code-${clientId}`,
        grant_id: grantId,
        client_id: clientId,
        user_id: 'usr_1',
        redirect_uri: 'http://127.0.0.1/callback',
        code_challenge: 'challenge',
        scope: 'grant-scope',
        resource: 'https://school.example/api',
        nonce: null,
        auth_time: T0,
        created_at: T0,
        expires_at: T0 + 60_000,
        consumed_at: null,
      },
    )
    await db
      .insertInto('refresh_tokens')
      .values({
        token_digest: clientId === 'pci_public' ? 'refresh-old' : `refresh-${clientId}`,
        grant_id: grantId,
        client_id: clientId,
        scope: 'token-scope',
        created_at: T0,
        expires_at: T0 + 1_500,
        rotated_at: null,
      })
      .execute()
  }
  return grants
}

describe.skipIf(!postgresAdminUrl)('the refresh grant in one statement (PostgreSQL)', () => {
  it('rotates, stores both new tokens in their columns and records the grant’s use', async () => {
    storage = await openTestStorage()
    const { db } = storage.opened
    const grants = await seeded(db)
    const before = await tokenRows(db)

    const outcome = await grants.rotateRefreshInOneStatement!(rotation())
    expect(outcome).toEqual({ rotated: true, scope: 'token-scope' })

    const after = await tokenRows(db)
    expect(after.access).toEqual([
      {
        token_digest: 'access-new',
        grant_id: 'grt_pci_public',
        client_id: 'pci_public',
        user_id: 'usr_1',
        scope: 'token-scope',
        audience: 'https://school.example/api',
        created_at: NOW,
        expires_at: NOW + 300,
      },
    ])
    expect(after.refresh.filter((r) => r.grant_id === 'grt_pci_public')).toEqual(
      [
        {
          token_digest: 'refresh-new',
          grant_id: 'grt_pci_public',
          client_id: 'pci_public',
          scope: 'token-scope',
          created_at: NOW,
          // The grant's end (T0 + 5,000), before the token's own lifetime (NOW + 9,000).
          expires_at: T0 + GRANT_MAXIMUM_MS,
        },
        {
          token_digest: 'refresh-old',
          grant_id: 'grt_pci_public',
          client_id: 'pci_public',
          scope: 'token-scope',
          created_at: T0,
          expires_at: T0 + 1_500,
          rotated_at: NOW,
        },
      ].map((r) => ({ rotated_at: null, ...r })),
    )
    expect(after.grants.find((g) => g.id === 'grt_pci_public')).toEqual({
      id: 'grt_pci_public',
      last_used_at: NOW,
      expires_at: T0 + GRANT_MAXIMUM_MS,
      revoked_at: null,
    })
    // Nothing else moved.
    expect(after.grants.filter((g) => g.id !== 'grt_pci_public')).toEqual(
      before.grants.filter((g) => g.id !== 'grt_pci_public'),
    )
  })

  const refusals: {
    name: string
    rotation?: Partial<RefreshRotation>
    change?: (db: Database['db']) => Promise<unknown>
  }[] = [
    { name: 'an unknown client', rotation: { clientId: 'pci_unknown' } },
    { name: 'an unknown token', rotation: { rotates: 'refresh-unknown' } },
    { name: 'another client’s token', rotation: { clientId: 'pci_other' } },
    {
      name: 'a confidential client (its secret is checked in constant time, never here)',
      rotation: { clientId: 'pci_confidential', rotates: 'refresh-pci_confidential' },
    },
    {
      name: 'a client not registered for the refresh grant',
      rotation: { clientId: 'pci_no_refresh', rotates: 'refresh-pci_no_refresh' },
    },
    {
      name: 'a metadata-document client (judged by its document at every use)',
      change: (db) =>
        db
          .updateTable('clients')
          .set({ kind: 'metadata_document' })
          .where('client_id', '=', 'pci_public')
          .execute(),
    },
    {
      name: 'a rotated token',
      change: (db) =>
        db
          .updateTable('refresh_tokens')
          .set({ rotated_at: T0 + 1 })
          .execute(),
    },
    { name: 'an expired token', rotation: { now: T0 + 1_500 } },
    {
      name: 'a revoked grant',
      change: (db) =>
        db
          .updateTable('grants')
          .set({ revoked_at: T0 + 1 })
          .execute(),
    },
    {
      name: 'an expired grant',
      change: (db) => db.updateTable('grants').set({ expires_at: NOW }).execute(),
    },
    { name: 'a grant past its absolute lifetime', rotation: { grantMaximumMs: 1_000 } },
    {
      name: 'a suspended person',
      change: (db) => db.updateTable('users').set({ status: 'suspended' }).execute(),
    },
    {
      name: 'a disabled person',
      change: (db) =>
        db
          .updateTable('users')
          .set({ disabled_at: T0 + 1 })
          .execute(),
    },
  ]
  for (const refusal of refusals) {
    it(`rotates and stores nothing for ${refusal.name}`, async () => {
      storage = await openTestStorage()
      const { db } = storage.opened
      const grants = await seeded(db)
      await refusal.change?.(db)
      const before = await tokenRows(db)
      const asked = rotation(refusal.rotation)
      const outcome = await grants.rotateRefreshInOneStatement!(asked)
      expect(await tokenRows(db)).toEqual(before)
      // What it read, for the grant to judge, is exactly what the two-step read reads.
      expect(outcome).toEqual({
        rotated: false,
        ...(await grants.findClientWithRefreshGrant(asked.clientId, asked.rotates)),
      })
    })
  }

  it('lets exactly one of ten concurrent refreshes of one token rotate it', async () => {
    storage = await openTestStorage()
    const { db } = storage.opened
    const grants = await seeded(db)
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, (_, k) =>
        grants.rotateRefreshInOneStatement!(
          rotation({ accessDigest: `access-${k}`, refreshDigest: `refresh-${k}` }),
        ),
      ),
    )
    expect(outcomes.filter((o) => o.rotated)).toHaveLength(1)
    const after = await tokenRows(db)
    expect(after.access).toHaveLength(1)
    expect(after.refresh.filter((r) => r.grant_id === 'grt_pci_public')).toHaveLength(2)
  })
})

describe.skipIf(postgresAdminUrl)('the refresh grant on SQLite', () => {
  it('has no one-statement form: in process, a second step costs no round trip', async () => {
    storage = await openTestStorage()
    expect(createGrantStore(storage.opened.db, 'sqlite').rotateRefreshInOneStatement).toBe(
      undefined,
    )
  })
})
