import { afterEach, describe, expect, it } from 'vitest'
import { parseConfig } from '../../src/config.js'
import { openDatabase } from '../../src/storage/database.js'
import { migrations } from '../../src/storage/migrations/index.js'
import { runCli } from '../support/cli.js'
import { createTestDatabase, type TestDatabase } from '../support/databases.js'

const SECRET = 'cli-test-secret-cli-test-secret-0123456'

let database: TestDatabase | undefined
afterEach(async () => {
  await database?.drop()
  database = undefined
})

async function recordedMigrations(url: string): Promise<string[]> {
  const opened = openDatabase(parseConfig({ DATABASE_URL: url }).database)
  try {
    const rows = await opened.db.selectFrom('portico_migrations').select('id').execute()
    return rows.map((r) => r.id).sort()
  } finally {
    await opened.close()
  }
}

describe('portico migrate', () => {
  it('applies every migration once, then finds the schema up to date (idempotent)', async () => {
    database = await createTestDatabase()
    const env = { DATABASE_URL: database.url, PORTICO_KEY_ENCRYPTION_SECRET: SECRET }
    const first = await runCli(['migrate'], env)
    expect(first.stderr).toBe('')
    expect(first.code).toBe(0)
    expect(first.stdout).toContain(`applied: ${migrations.map((m) => m.id).join(', ')}`)

    const second = await runCli(['migrate'], env)
    expect(second.code).toBe(0)
    expect(second.stdout.trim()).toBe('the schema is up to date')
    expect(await recordedMigrations(database.url)).toEqual(migrations.map((m) => m.id).sort())
  })

  it('is safe when several processes migrate the same fresh database at once', async () => {
    database = await createTestDatabase()
    const env = { DATABASE_URL: database.url, PORTICO_KEY_ENCRYPTION_SECRET: SECRET }
    const results = await Promise.all([1, 2, 3].map(() => runCli(['migrate'], env)))
    for (const result of results) {
      expect(result.stderr).toBe('')
      expect(result.code).toBe(0)
    }
    const applying = results.filter((r) => r.stdout.startsWith('applied:'))
    expect(applying).toHaveLength(1)
    expect(await recordedMigrations(database.url)).toEqual(migrations.map((m) => m.id).sort())
  })

  it('lets a server start on a database migrated beforehand, and several start at once', async () => {
    database = await createTestDatabase()
    const env = { DATABASE_URL: database.url, PORTICO_KEY_ENCRYPTION_SECRET: SECRET }
    const results = await Promise.all([1, 2].map(() => runCli(['keys', 'list'], env)))
    for (const result of results) expect(result.code).toBe(0)
    const active = results[1]?.stdout.split('\n').filter((l) => /\bactive\b/.test(l)) ?? []
    expect(active).toHaveLength(2)
  })
})
