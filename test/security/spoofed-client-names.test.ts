import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../support/cli.js'
import { createTestDatabase, type TestDatabase } from '../support/databases.js'
import { countClients, LOOPBACK, register } from '../support/registration.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { issue } from '../support/token-lifecycle.js'

/**
 * Spoofed client names: a self-declared name is shown to people on the sign-in, consent and
 * account pages, so it must read the same everywhere. Invisible and format characters
 * (Unicode Cc, Cf — bidi controls, zero-width characters —, Zl, Zp, default-ignorables) are
 * refused with RFC 7591 §3.2.2 `invalid_client_metadata`, and nothing is stored; so are they
 * in the names operators give integrations (`portico integrations create --name`), and in
 * the name a person gives themselves (`PATCH /api/v1/account`, 422), which owners and admins
 * see on the connected-apps page.
 */

const HIDDEN: readonly [string, string][] = [
  ['bidi-spoofed name (RIGHT-TO-LEFT OVERRIDE)', 'My School \u202Eloohcs\u202C'],
  ['bidi isolate (RIGHT-TO-LEFT ISOLATE)', 'My \u2067School\u2069'],
  ['bidi mark (LEFT-TO-RIGHT MARK)', 'My School\u200E'],
  ['Arabic letter mark', 'My\u061CSchool'],
  ['zero-width space', 'My Sch\u200Bool'],
  ['zero-width joiner', 'My Sch\u200Dool'],
  ['word joiner', 'My\u2060School'],
  ['byte order mark inside', 'My\uFEFFSchool'],
  ['soft hyphen', 'My Sch\u00ADool'],
  ['tag characters (invisible text)', 'My School\u{E0041}\u{E0042}'],
  ['line separator', 'My School\u2028Admin'],
  ['paragraph separator', 'My School\u2029Admin'],
  ['Hangul filler (renders as nothing)', 'My\u3164School'],
  ['combining grapheme joiner', 'My School\u034F'],
  ['escape sequence (Cc)', 'My School\u001B[31m'],
]

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(async () => {
  await server?.close()
})

describe('self-service registration refuses hidden characters in client_name', () => {
  for (const [attack, name] of HIDDEN) {
    it(`refuses a ${attack}`, async () => {
      const before = await countClients(server)
      const answer = await register(server, { redirect_uris: [LOOPBACK], client_name: name })
      expect(answer.status).toBe(400)
      expect(answer.body.error).toBe('invalid_client_metadata')
      expect(answer.body.error_description).toMatch(/client_name .*invisible or formatting/)
      expect(answer.body.error_description).toMatch(/U\+[0-9A-F]{4,}/)
      expect(await countClients(server)).toBe(before)
    })
  }

  it('accepts names in any script, with ordinary spaces and emoji', async () => {
    for (const name of ['École Lumière', 'مدرسة التصوير', '写真学校', 'Notes ✏️', 'A – B']) {
      const answer = await register(server, { redirect_uris: [LOOPBACK], client_name: name })
      expect(answer.status, name).toBe(201)
      expect(answer.body.client_name).toBe(name)
    }
  })
})

describe('operator-registered integrations refuse hidden characters in --name', () => {
  let database: TestDatabase
  let env: Record<string, string>
  beforeAll(async () => {
    database = await createTestDatabase()
    env = {
      DATABASE_URL: database.url,
      PORTICO_KEY_ENCRYPTION_SECRET: 'cli-test-secret-cli-test-secret-0123456',
    }
  })
  afterAll(async () => {
    await database?.drop()
  })

  it('refuses a bidi-spoofed integration name and stores nothing', async () => {
    const created = await runCli(
      [
        'integrations',
        'create',
        '--name',
        'Grades \u202Etropxe\u202C',
        '--redirect-uri',
        'https://app.example/cb',
      ],
      env,
    )
    expect(created.code).not.toBe(0)
    expect(created.stderr).toMatch(/invisible or formatting characters \(found U\+202E\)/)
    const listed = await runCli(['integrations', 'list', '--json'], env)
    expect(JSON.parse(listed.stdout)).toEqual([])
  })

  it('accepts an ordinary name', async () => {
    const created = await runCli(
      ['integrations', 'create', '--name', 'Gradebook', '--redirect-uri', 'https://app.example/cb'],
      env,
    )
    expect(created.code).toBe(0)
  })
})

describe('a person’s own name, shown to owners and admins, refuses hidden characters', () => {
  it('refuses a zero-width-spoofed account name with 422 and keeps the old one', async () => {
    const { accessToken, person } = await issue(server, {
      role: 'student',
      scope: 'openid account:read account:write',
    })
    const headers = {
      authorization: `Bearer ${accessToken}`,
      'content-type': 'application/json',
    }
    const refused = await server.fetch('/api/v1/account', {
      method: 'PATCH',
      headers,
      body: JSON.stringify({ name: 'Ana\u200B (Admin)' }),
    })
    expect(refused.status).toBe(422)
    const problem = (await refused.json()) as { errors: { field: string; message: string }[] }
    expect(problem.errors[0]?.field).toBe('name')
    expect(problem.errors[0]?.message).toMatch(/U\+200B/)
    const stored = await server.deps.users.findById(person.user.id)
    expect(stored?.name).toBe(person.user.name)

    const accepted = await server.fetch('/api/v1/account', {
      method: 'PATCH',
      headers,
      body: JSON.stringify({ name: 'Ana Lúcia' }),
    })
    expect(accepted.status).toBe(200)
  })
})
