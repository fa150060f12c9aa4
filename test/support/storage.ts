import { parseConfig } from '../../src/config.js'
import type { Client } from '../../src/storage/clients.js'
import { type Database, openDatabase } from '../../src/storage/database.js'
import { migrate } from '../../src/storage/migrate.js'
import { createTestDatabase } from './databases.js'

/** A fresh, migrated database opened as Portico opens it, for tests of the storage layer. */
export interface TestStorage {
  readonly opened: Database
  readonly url: string
  close(): Promise<void>
}

/** Opens a fresh test database (SQLite, or PostgreSQL under DATABASE_URL) and migrates it. */
export async function openTestStorage(poolSize = 10): Promise<TestStorage> {
  const database = await createTestDatabase()
  const config = parseConfig({ DATABASE_URL: database.url })
  const opened = openDatabase(config.database, { ...config.databasePool, size: poolSize })
  await migrate(opened)
  return {
    opened,
    url: database.url,
    async close() {
      await opened.close()
      await database.drop()
    },
  }
}

/** A self-registered public client as the storage layer holds it. */
export function storedClient(clientId: string, clientName: string): Client {
  return {
    clientId,
    kind: 'self_registered',
    clientName,
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
}

/** Every stored token, and each grant's use, expiry and revocation: what a token write touched. */
export async function tokenRows(db: Database['db']) {
  return {
    access: await db.selectFrom('access_tokens').selectAll().orderBy('token_digest').execute(),
    refresh: await db.selectFrom('refresh_tokens').selectAll().orderBy('token_digest').execute(),
    grants: await db
      .selectFrom('grants')
      .select(['id', 'last_used_at', 'expires_at', 'revoked_at'])
      .orderBy('id')
      .execute(),
  }
}
