import { createHash } from 'node:crypto'
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { decrypt, deriveKey } from '../../../src/platform/crypto.js'
import { SqliteDatabase } from '../../../src/storage/sqlite-driver.js'
import { startCliServer } from '../../support/cli-server.js'
import { readJson } from '../../support/http.js'
import { LOOPBACK, register } from '../../support/registration.js'
import { startTestServer, type TestServer } from '../../support/server.js'

/** The secret startTestServer configures (test/support/server.ts). */
const TEST_KEY_SECRET = 'test-secret-test-secret-test-secret-0123'

const sha256 = (value: string) => createHash('sha256').update(value).digest('base64url')

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(async () => {
  await server?.close()
})

/** Every row of every table, as text: what someone reading the database would see. */
async function dumpDatabase(target: TestServer): Promise<string> {
  const { db, dialect } = target.deps.database
  const tables =
    dialect === 'sqlite'
      ? await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(db)
      : await sql<{
          name: string
        }>`select tablename as name from pg_tables where schemaname = 'public'`.execute(db)
  const dump: string[] = []
  for (const { name } of tables.rows) {
    const rows = await sql`select * from ${sql.table(name)}`.execute(db)
    dump.push(`${name}: ${JSON.stringify(rows.rows)}`)
  }
  return dump.join('\n')
}

describe('client secrets are stored only as their SHA-256 digest', () => {
  it('keeps the secret out of every table and every log line', async () => {
    const answer = await register(server, {
      redirect_uris: [LOOPBACK],
      token_endpoint_auth_method: 'client_secret_post',
    })
    expect(answer.status).toBe(201)
    const secret = answer.body.client_secret as string
    expect(secret.length).toBeGreaterThanOrEqual(32)

    const row = await server.deps.database.db
      .selectFrom('clients')
      .selectAll()
      .where('client_id', '=', answer.body.client_id)
      .executeTakeFirstOrThrow()
    expect(row.secret_digest).toBe(sha256(secret))
    expect(JSON.stringify(row)).not.toContain(secret)

    const dump = await dumpDatabase(server)
    expect(dump).toContain(answer.body.client_id)
    expect(dump).not.toContain(secret)
    expect(dump).not.toContain(secret.slice(-20))
    expect(server.logText()).not.toContain(secret)
    expect(server.logText()).not.toContain(secret.slice(-20))
  })

  it('gives every confidential client its own secret', async () => {
    const secrets = new Set<string>()
    for (let i = 0; i < 3; i++) {
      const answer = await register(server, {
        redirect_uris: [LOOPBACK],
        token_endpoint_auth_method: 'client_secret_post',
      })
      secrets.add(answer.body.client_secret)
    }
    expect(secrets.size).toBe(3)
  })

  it('stores no digest for a public client', async () => {
    const answer = await register(server, { redirect_uris: [LOOPBACK] })
    const row = await server.deps.database.db
      .selectFrom('clients')
      .select('secret_digest')
      .where('client_id', '=', answer.body.client_id)
      .executeTakeFirstOrThrow()
    expect(row.secret_digest).toBeNull()
  })
})

describe('private signing keys are encrypted at rest', () => {
  it('stores an RS256 and an ES256 key whose private halves are not readable JWK', async () => {
    const rows = await server.deps.database.db.selectFrom('signing_keys').selectAll().execute()
    expect(rows.map((r) => r.alg).sort()).toEqual(['ES256', 'RS256'])
    for (const row of rows) {
      const publicJwk = JSON.parse(row.public_jwk)
      for (const member of ['d', 'p', 'q', 'dp', 'dq', 'qi'])
        expect(publicJwk).not.toHaveProperty(member)
      expect(row.private_jwk_sealed).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/)
      expect(row.private_jwk_sealed).not.toMatch(/"d"|"kty"|"crv"/)
      expect(() => JSON.parse(row.private_jwk_sealed)).toThrow()
      const opened = JSON.parse(
        decrypt(deriveKey(TEST_KEY_SECRET), row.private_jwk_sealed, row.kid),
      )
      expect(opened.d).toEqual(expect.any(String))
      expect(() =>
        decrypt(deriveKey(`${TEST_KEY_SECRET}x`), row.private_jwk_sealed, row.kid),
      ).toThrow()
    }
  })
})

describe('without a configured secret, a generated secret file (mode 0600) sits beside SQLite', () => {
  let folder: string
  beforeAll(() => {
    folder = mkdtempSync(path.join(tmpdir(), 'portico-secret-'))
  })
  afterAll(() => {
    rmSync(folder, { recursive: true, force: true })
  })

  function sealedKeys(file: string) {
    const db = new SqliteDatabase(file, { readonly: true })
    try {
      return db.prepare('select kid, private_jwk_sealed from signing_keys').all() as Array<{
        kid: string
        private_jwk_sealed: string
      }>
    } finally {
      db.close()
    }
  }

  it('creates portico.secret, mode 0600, and seals the keys with it', async () => {
    const database = path.join(folder, 'first', 'portico.db')
    const cli = await startCliServer({ DATABASE_URL: `sqlite:${database}` })
    try {
      const jwks = await readJson(await fetch(`${cli.url}/.well-known/jwks.json`))
      expect(jwks.keys).toHaveLength(2)
    } finally {
      expect(await cli.stop()).toBe(0)
    }
    const secretFile = path.join(path.dirname(database), 'portico.secret')
    expect(statSync(secretFile).mode & 0o777).toBe(0o600)
    const secret = readFileSync(secretFile, 'utf8').trim()
    expect(secret.length).toBeGreaterThanOrEqual(32)
    const keys = sealedKeys(database)
    expect(keys).toHaveLength(2)
    for (const row of keys) {
      expect(row.private_jwk_sealed).not.toContain('"d"')
      expect(JSON.parse(decrypt(deriveKey(secret), row.private_jwk_sealed, row.kid)).d).toEqual(
        expect.any(String),
      )
    }
  })

  it('tightens an existing secret file to mode 0600 and keeps using it', async () => {
    const database = path.join(folder, 'second', 'portico.db')
    const secretFile = path.join(path.dirname(database), 'portico.secret')
    const secret = 'an-operator-provided-secret-of-enough-length'
    mkdirSync(path.dirname(database))
    writeFileSync(secretFile, `${secret}\n`)
    chmodSync(secretFile, 0o644)

    const cli = await startCliServer({ DATABASE_URL: `sqlite:${database}` })
    expect(await cli.stop()).toBe(0)
    expect(statSync(secretFile).mode & 0o777).toBe(0o600)
    for (const row of sealedKeys(database)) {
      expect(() => decrypt(deriveKey(secret), row.private_jwk_sealed, row.kid)).not.toThrow()
    }
  })
})
