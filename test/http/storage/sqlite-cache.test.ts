import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { sql } from 'kysely'
import { afterEach, expect, it } from 'vitest'
import { parseConfig } from '../../../src/config.js'
import { type Database, openDatabase } from '../../../src/storage/database.js'

let database: Database | undefined
const dirs: string[] = []
afterEach(async () => {
  await database?.close()
  database = undefined
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

async function cacheSizeWith(env: Record<string, string>): Promise<unknown> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'portico-cache-'))
  dirs.push(dir)
  const config = parseConfig({ ...env, DATABASE_URL: `sqlite:${path.join(dir, 'p.db')}` })
  database = openDatabase(config.database, config.databasePool)
  const { rows } = await sql<{ cache_size: number }>`pragma cache_size`.execute(database.db)
  return rows[0]?.cache_size
}

it('gives the SQLite connection the page cache PORTICO_SQLITE_CACHE_MIB names, 16 MiB by default', async () => {
  expect(await cacheSizeWith({})).toBe(-16 * 1024)
  await database?.close()
  database = undefined
  expect(await cacheSizeWith({ PORTICO_SQLITE_CACHE_MIB: '3' })).toBe(-3 * 1024)
})
