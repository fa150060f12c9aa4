import { afterEach, describe, expect, it } from 'vitest'
import { ConfigError, parseConfig } from '../../../src/config.js'
import { prepare } from '../../../src/main.js'
import { ensureSchoolAndOwner } from '../../../src/people/first-start.js'
import { createLogger } from '../../../src/platform/logger.js'
import { verifyPassword } from '../../../src/platform/passwords.js'
import { cryptoRandom } from '../../../src/platform/random.js'
import { startTestServer, type TestServer } from '../../support/server.js'

const servers: TestServer[] = []
async function server(env?: Record<string, string>): Promise<TestServer> {
  const s = await startTestServer({ env })
  servers.push(s)
  return s
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()))
})

async function schoolRows(s: TestServer) {
  return s.deps.database.db.selectFrom('school').selectAll().execute()
}

describe('first start on an empty database', () => {
  it('does not happen inside startServer: a started server has no school and no accounts', async () => {
    const s = await server()
    expect(await schoolRows(s)).toEqual([])
    expect(await s.deps.users.count()).toBe(0)
  })

  it('creates the school and one owner whose generated password verifies', async () => {
    const s = await server()
    const first = await ensureSchoolAndOwner(s.deps)
    expect(first).toEqual({
      email: 'owner@school.invalid',
      password: expect.stringMatching(/^[A-Za-z0-9_-]{24}$/),
      signInUrl: `${s.issuer}/login`,
    })
    const school = await schoolRows(s)
    expect(school).toEqual([expect.objectContaining({ id: 'school', name: 'My school' })])
    const users = await s.deps.users.list()
    expect(users).toHaveLength(1)
    expect(users[0]).toMatchObject({ email: 'owner@school.invalid', role: 'owner' })
    expect(users[0]?.id).toMatch(/^usr_/)
    const credentials = await s.deps.users.findCredentials('owner@school.invalid')
    expect(credentials?.passwordHash).toMatch(/^\$argon2id\$/)
    expect(await verifyPassword(first?.password ?? '', credentials?.passwordHash)).toBe(true)
    expect(await verifyPassword(`${first?.password}x`, credentials?.passwordHash)).toBe(false)
    expect(s.logText()).not.toContain(first?.password)
  })

  it('makes the password from 18 bytes of deps.random (144 bits), base64url', async () => {
    const s = await server()
    const bytes = Buffer.from('000102030405060708090a0b0c0d0e0f1011', 'hex')
    const random = { ...cryptoRandom, bytes: (n: number) => bytes.subarray(0, n) }
    const first = await ensureSchoolAndOwner({ ...s.deps, random })
    expect(first?.password).toBe(bytes.toString('base64url'))
  })

  it('answers undefined on every later call and creates nothing more', async () => {
    const s = await server()
    expect(await ensureSchoolAndOwner(s.deps)).toBeDefined()
    const before = await s.deps.users.list()
    expect(await ensureSchoolAndOwner(s.deps)).toBeUndefined()
    expect(await ensureSchoolAndOwner(s.deps)).toBeUndefined()
    expect(await s.deps.users.list()).toEqual(before)
    expect(await schoolRows(s)).toHaveLength(1)
  })

  it('creates exactly one owner when two calls race', async () => {
    const s = await server()
    const results = await Promise.all([ensureSchoolAndOwner(s.deps), ensureSchoolAndOwner(s.deps)])
    expect(results.filter(Boolean)).toHaveLength(1)
    expect(await s.deps.users.count()).toBe(1)
    expect(await schoolRows(s)).toHaveLength(1)
  })

  // Two instances with pools of their own; on SQLite one process cannot hold two writers
  // (the busy wait blocks its event loop), so serve-first-start.test.ts races two processes.
  it.runIf(process.env.DATABASE_URL?.startsWith('postgres'))(
    'creates exactly one owner when two instances on one database start together',
    async () => {
      const s = await server()
      const other = await prepare(s.deps.config, { logger: createLogger('silent') })
      try {
        const results = await Promise.all([
          ensureSchoolAndOwner(s.deps),
          ensureSchoolAndOwner(other),
          ensureSchoolAndOwner(other),
        ])
        expect(results.filter(Boolean)).toHaveLength(1)
        expect(await s.deps.users.count()).toBe(1)
        expect(await schoolRows(s)).toHaveLength(1)
      } finally {
        await other.database.close()
      }
    },
  )

  it('uses PORTICO_OWNER_EMAIL, lower-cased, when it is configured', async () => {
    const s = await server({ PORTICO_OWNER_EMAIL: 'Head@Example.org' })
    const first = await ensureSchoolAndOwner(s.deps)
    expect(first?.email).toBe('head@example.org')
    expect((await s.deps.users.list()).map((u) => [u.email, u.role])).toEqual([
      ['head@example.org', 'owner'],
    ])
  })

  it('refuses a PORTICO_OWNER_EMAIL that is not an e-mail address', () => {
    for (const bad of ['owner', 'owner@', '@school.invalid', 'a b@c.d', 'owner@school.invalid\n']) {
      expect(() => parseConfig({ PORTICO_OWNER_EMAIL: bad })).toThrow(ConfigError)
    }
  })

  it('creates no second owner when one was added before the first start', async () => {
    const s = await server()
    await s.deps.users.insert({
      id: 'usr_early',
      email: 'early@example.org',
      name: 'Early',
      role: 'owner',
      passwordHash: 'x',
      now: s.deps.clock.now(),
    })
    expect(await ensureSchoolAndOwner(s.deps)).toBeUndefined()
    expect(await s.deps.users.count()).toBe(1)
    expect(await schoolRows(s)).toHaveLength(1)
  })

  it('refuses, creating nothing, when the owner e-mail belongs to someone else', async () => {
    const s = await server()
    await s.deps.users.insert({
      id: 'usr_student',
      email: 'owner@school.invalid',
      name: 'Student',
      role: 'student',
      passwordHash: 'x',
      now: s.deps.clock.now(),
    })
    await expect(ensureSchoolAndOwner(s.deps)).rejects.toThrow(/PORTICO_OWNER_EMAIL/)
    expect(await schoolRows(s)).toEqual([])
    expect(await s.deps.users.count()).toBe(1)
  })
})
