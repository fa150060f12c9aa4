import type { Caller } from '../../src/api/caller.js'
import type { AppDeps } from '../../src/app-deps.js'
import { parseConfig } from '../../src/config.js'
import { prepare } from '../../src/main.js'
import { createTestDatabase, type TestDatabase } from './databases.js'

/** Portico's dependencies on a database of its own, for calling operations without a server. */
export async function prepareDeps(): Promise<{ database: TestDatabase; deps: AppDeps }> {
  const database = await createTestDatabase()
  const deps = await prepare(
    parseConfig({
      PORTICO_ISSUER: 'https://school.example',
      DATABASE_URL: database.url,
      LOG_LEVEL: 'silent',
      PORTICO_CONFIRMATIONS: 'off',
      PORTICO_KEY_ENCRYPTION_SECRET: 'test-secret-test-secret-test-secret-0123',
    }),
  )
  return { database, deps }
}

/** The school's owner as a token caller holding `scopes`. */
export async function ownerCaller(deps: AppDeps, scopes: readonly string[]): Promise<Caller> {
  const user = await deps.users.insert({
    id: 'usr_owner',
    email: 'owner@school.example',
    name: 'Olive Owner',
    role: 'owner',
    passwordHash: 'not-used',
    now: deps.clock.now(),
  })
  return { kind: 'token', user, clientId: 'cli_test', grantId: 'grt_test', scopes: new Set(scopes) }
}
