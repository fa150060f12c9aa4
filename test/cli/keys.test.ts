import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseConfig } from '../../src/config.js'
import { startServer } from '../../src/main.js'
import { createLogger } from '../../src/platform/logger.js'
import { runCli } from '../support/cli.js'
import { createTestDatabase, type TestDatabase } from '../support/databases.js'

const SECRET = 'cli-test-secret-cli-test-secret-0123456'

let database: TestDatabase
let env: Record<string, string>
beforeAll(async () => {
  database = await createTestDatabase()
  env = { DATABASE_URL: database.url, PORTICO_KEY_ENCRYPTION_SECRET: SECRET }
})
afterAll(async () => {
  await database?.drop()
})

interface KeyLine {
  kid: string
  alg: string
  state: string
}

async function listKeys(): Promise<KeyLine[]> {
  const result = await runCli(['keys', 'list'], env)
  expect(result.stderr).toBe('')
  expect(result.code).toBe(0)
  const [header, ...lines] = result.stdout.trim().split('\n')
  expect(header).toMatch(/^kid\s+alg\s+state\s+created$/)
  return lines.map((line) => {
    const [kid = '', alg = '', state = ''] = line.trim().split(/\s+/)
    return { kid, alg, state }
  })
}

/** The kids a server started on the CLI's database publishes. */
async function publishedKids(): Promise<string[]> {
  const config = parseConfig({
    ...env,
    PORT: '0',
    PORTICO_ISSUER: 'http://127.0.0.1:3000',
    LOG_LEVEL: 'silent',
  })
  const server = await startServer(config, { logger: createLogger('silent') })
  try {
    const jwks = (await (await fetch(`${server.url}/.well-known/jwks.json`)).json()) as {
      keys: Array<{ kid: string }>
    }
    return jwks.keys.map((k) => k.kid)
  } finally {
    await server.close()
  }
}

describe('portico keys', () => {
  let first: KeyLine[]

  it('list: creates an RS256 and an ES256 key on first use and shows them active', async () => {
    first = await listKeys()
    expect(first.map((k) => k.alg).sort()).toEqual(['ES256', 'RS256'])
    expect(first.every((k) => k.state === 'active')).toBe(true)
    expect(await listKeys()).toEqual(first)
  })

  it('rotate: adds a new active key per algorithm and retires the old ones', async () => {
    const result = await runCli(['keys', 'rotate'], env)
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    const announced = [...result.stdout.matchAll(/active (RS256|ES256) key: (\S+)/g)].map(
      (m) => m[2],
    )
    expect(announced).toHaveLength(2)

    const after = await listKeys()
    expect(after).toHaveLength(4)
    const active = after.filter((k) => k.state === 'active')
    expect(active.map((k) => k.alg).sort()).toEqual(['ES256', 'RS256'])
    expect(active.map((k) => k.kid).sort()).toEqual([...announced].sort())
    for (const old of first) {
      expect(after.find((k) => k.kid === old.kid)?.state).toBe('retired')
    }
  })

  it('keeps the retired keys in the JWKS of a server started on that database', async () => {
    const kids = await publishedKids()
    expect(kids).toHaveLength(4)
    for (const key of await listKeys()) expect(kids).toContain(key.kid)
  })

  it('refuses to start when the key-encryption secret is not the one the keys were sealed with', async () => {
    const result = await runCli(['keys', 'list'], {
      ...env,
      PORTICO_KEY_ENCRYPTION_SECRET: 'a-different-secret-a-different-secret-00',
    })
    expect(result.code).not.toBe(0)
    expect(result.stderr.trim().split('\n')).toHaveLength(1)
    expect(result.stderr).toMatch(/key-encryption secret/)
  })
})
