import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AppDeps } from '../../src/app-deps.js'
import { parseConfig } from '../../src/config.js'
import { prepare } from '../../src/main.js'
import { createLogger } from '../../src/platform/logger.js'
import { verifyPassword } from '../../src/platform/passwords.js'
import { runCli } from '../support/cli.js'
import { createTestDatabase, type TestDatabase } from '../support/databases.js'

const SECRET = 'test-secret-test-secret-test-secret-0123'
const PASSWORD = 'correct horse battery'

let database: TestDatabase
let env: Record<string, string>
/** The same database, read in-process. */
let deps: AppDeps
beforeAll(async () => {
  database = await createTestDatabase()
  env = { DATABASE_URL: database.url, PORTICO_KEY_ENCRYPTION_SECRET: SECRET }
  deps = await prepare(parseConfig(env), { logger: createLogger('silent') })
})
afterAll(async () => {
  await deps?.database.close()
  await database?.drop()
})

const cli = (args: string[], stdin?: string) => runCli(['users', ...args], env, stdin)
const add = (email: string, role: string, password = `${PASSWORD}\n`, name = 'Ada Lovelace') =>
  cli(['add', '--email', email, '--name', name, '--role', role, '--password-stdin'], password)

/** An error is one line on stderr, nothing on stdout, and a non-zero exit. */
function expectRefusal(
  result: { code: number | null; stdout: string; stderr: string },
  reason: RegExp,
) {
  expect(result.code).not.toBe(0)
  expect(result.stdout).toBe('')
  expect(result.stderr.trim().split('\n')).toHaveLength(1)
  expect(result.stderr).toMatch(/^portico: /)
  expect(result.stderr).toMatch(reason)
}

async function hashOf(email: string): Promise<string | undefined> {
  return (await deps.users.findCredentials(email))?.passwordHash
}

describe('portico users add', () => {
  it('adds an account with an argon2id hash of the password, less its trailing newline', async () => {
    const result = await add('Ada@Example.org', 'lecturer')
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/^added usr_\S+ {2}ada@example\.org {2}\(lecturer\)\n$/)
    expect(`${result.stdout}${result.stderr}`).not.toContain(PASSWORD)
    const credentials = await deps.users.findCredentials('ada@example.org')
    expect(credentials?.user).toMatchObject({ name: 'Ada Lovelace', role: 'lecturer' })
    expect(credentials?.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/)
    expect(await verifyPassword(PASSWORD, credentials?.passwordHash)).toBe(true)
    expect(await verifyPassword(`${PASSWORD}\n`, credentials?.passwordHash)).toBe(false)
    expect(`${result.stdout}${result.stderr}`).not.toContain(credentials?.passwordHash)
  })

  it('refuses an e-mail that is already taken, whatever its case', async () => {
    const before = await deps.users.count()
    expectRefusal(await add('ADA@example.ORG', 'student'), /ada@example\.org already exists/)
    expect(await deps.users.count()).toBe(before)
  })

  it('refuses an unknown role, naming the roles', async () => {
    expectRefusal(
      await add('grace@example.org', 'teacher'),
      /owner, admin, editor, lecturer, teaching_assistant, student/,
    )
    expect(await hashOf('grace@example.org')).toBeUndefined()
  })

  it('refuses a short password', async () => {
    expectRefusal(await add('grace@example.org', 'student', 'short\n'), /at least 10 characters/)
    expectRefusal(await add('grace@example.org', 'student', ''), /at least 10 characters/)
    expect(await hashOf('grace@example.org')).toBeUndefined()
  })

  it('refuses an address that is not an e-mail, and an empty name', async () => {
    expectRefusal(await add('grace', 'student'), /not an e-mail address/)
    expectRefusal(await add('grace@example.org', 'student', PASSWORD, '  '), /name/)
    expect(await hashOf('grace@example.org')).toBeUndefined()
  })

  it('refuses to run without --password-stdin or another required option', async () => {
    expectRefusal(
      await cli(['add', '--email', 'g@example.org', '--name', 'G', '--role', 'student'], PASSWORD),
      /--password-stdin/,
    )
    expectRefusal(
      await cli(['add', '--email', 'g@example.org', '--password-stdin'], PASSWORD),
      /--name/,
    )
  })
})

describe('portico users set-password', () => {
  it('replaces the hash: the new password verifies, the old one no longer does', async () => {
    await add('grace@example.org', 'teaching_assistant')
    const oldHash = await hashOf('grace@example.org')
    const next = 'a much better passphrase'
    const result = await cli(
      ['set-password', '--email', 'Grace@Example.org', '--password-stdin'],
      `${next}\n`,
    )
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('grace@example.org')
    expect(`${result.stdout}${result.stderr}`).not.toContain(next)
    const newHash = await hashOf('grace@example.org')
    expect(newHash).not.toBe(oldHash)
    expect(await verifyPassword(next, newHash)).toBe(true)
    expect(await verifyPassword(PASSWORD, newHash)).toBe(false)
  })

  it('signs the account out of every session', async () => {
    const user = (await deps.users.findCredentials('grace@example.org'))?.user
    const now = Date.now()
    await deps.sessions.insert({
      idDigest: 'digest-of-a-session',
      userId: user?.id ?? '',
      authTime: now,
      now,
      expiresAt: now + 3_600_000,
    })
    expect(await deps.sessions.find('digest-of-a-session', now)).toBeDefined()
    const result = await cli(
      ['set-password', '--email', 'grace@example.org', '--password-stdin'],
      'yet another passphrase',
    )
    expect(result.code).toBe(0)
    expect(await deps.sessions.find('digest-of-a-session', now)).toBeUndefined()
  })

  it('refuses an unknown e-mail', async () => {
    expectRefusal(
      await cli(['set-password', '--email', 'nobody@example.org', '--password-stdin'], PASSWORD),
      /no account with e-mail nobody@example\.org/,
    )
    expect(await deps.users.findCredentials('nobody@example.org')).toBeUndefined()
  })

  it('refuses a short password and keeps the old one', async () => {
    const before = await hashOf('ada@example.org')
    expectRefusal(
      await cli(['set-password', '--email', 'ada@example.org', '--password-stdin'], 'short'),
      /at least 10 characters/,
    )
    expect(await hashOf('ada@example.org')).toBe(before)
  })
})

describe('portico users list', () => {
  it('lists every account with its role and nothing of any hash', async () => {
    const result = await cli(['list'])
    expect(result.code).toBe(0)
    const lines = result.stdout.trim().split('\n')
    expect(lines).toHaveLength(2)
    expect(lines[0]).toMatch(/^usr_\S+ {2}ada@example\.org {2}lecturer {2}Ada Lovelace$/)
    expect(lines[1]).toMatch(/grace@example\.org {2}teaching_assistant/)
    expect(result.stdout).not.toMatch(/argon2|\$v=19/)
  })

  it('prints JSON with --json, without any hash field', async () => {
    const result = await cli(['list', '--json'])
    expect(result.code).toBe(0)
    const rows = JSON.parse(result.stdout) as Array<Record<string, unknown>>
    expect(rows.map((r) => [r.email, r.role])).toEqual([
      ['ada@example.org', 'lecturer'],
      ['grace@example.org', 'teaching_assistant'],
    ])
    for (const row of rows) {
      expect(Object.keys(row).sort()).toEqual(
        ['created_at', 'disabled_at', 'email', 'id', 'name', 'role'].sort(),
      )
    }
    expect(result.stdout).not.toMatch(/argon2/)
  })
})
