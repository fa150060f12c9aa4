import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { sql } from 'kysely'
import { afterEach, expect, it } from 'vitest'
import { parseConfig } from '../../../src/config.js'
import { type Database, openDatabase } from '../../../src/storage/database.js'

const opened: Database[] = []
const dirs: string[] = []
afterEach(async () => {
  for (const database of opened.splice(0)) await database.close()
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** `pragma cache_size` of a SQLite database opened with the configuration of `env`. */
async function cacheSizeWith(env: Record<string, string>): Promise<unknown> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'portico-cache-'))
  dirs.push(dir)
  const config = parseConfig({ ...env, DATABASE_URL: `sqlite:${path.join(dir, 'p.db')}` })
  const database = openDatabase(config.database, config.databasePool)
  opened.push(database)
  const { rows } = await sql<{ cache_size: number }>`pragma cache_size`.execute(database.db)
  return rows[0]?.cache_size
}

it('gives the SQLite connection the page cache PORTICO_SQLITE_CACHE_MIB names, 16 MiB by default', async () => {
  expect(await cacheSizeWith({})).toBe(-16 * 1024)
  expect(await cacheSizeWith({ PORTICO_SQLITE_CACHE_MIB: '3' })).toBe(-3 * 1024)
})
