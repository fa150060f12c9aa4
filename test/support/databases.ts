import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import pg from 'pg'

/** A database of its own for one test server or CLI run, removed afterwards. */
export interface TestDatabase {
  readonly url: string
  readonly dialect: 'sqlite' | 'postgres'
  drop(): Promise<void>
}

/** The PostgreSQL server the suite runs against, when DATABASE_URL names one. */
export const postgresAdminUrl: string | undefined = process.env.DATABASE_URL?.startsWith('postgres')
  ? process.env.DATABASE_URL
  : undefined

/**
 * PostgreSQL when DATABASE_URL points at one (a fresh database per call, so runs and test
 * files never collide), otherwise a SQLite file in a fresh temporary folder.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  if (postgresAdminUrl) {
    const name = `portico_t_${randomBytes(6).toString('hex')}`
    const admin = new pg.Client({ connectionString: postgresAdminUrl })
    await admin.connect()
    try {
      await admin.query(`create database ${name}`)
    } finally {
      await admin.end()
    }
    const url = new URL(postgresAdminUrl)
    url.pathname = `/${name}`
    return {
      url: url.toString(),
      dialect: 'postgres',
      async drop() {
        const client = new pg.Client({ connectionString: postgresAdminUrl })
        await client.connect()
        try {
          await client.query(`drop database if exists ${name} with (force)`)
        } finally {
          await client.end()
        }
      },
    }
  }
  const folder = mkdtempSync(path.join(tmpdir(), 'portico-test-'))
  return {
    url: `sqlite:${path.join(folder, 'portico.db')}`,
    dialect: 'sqlite',
    async drop() {
      rmSync(folder, { recursive: true, force: true })
    },
  }
}
