import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { digest } from '../../../src/platform/crypto.js'
import {
  Browser,
  createPerson,
  createPkce,
  registerTestClient,
  runAuthorization,
  type TestClient,
  type TestPerson,
} from '../../support/flow.js'
import { startTestServer, type TestServer } from '../../support/server.js'
import { clientRedirect, codeRow, decide, openConsent } from './support.js'

/**
 * Issue 3, "Consent": approve redirects with code, state and iss. Codes carry at least 128
 * bits of randomness, live 60 seconds, are stored hashed, and are bound to the client, the
 * exact redirect_uri used (port included), the PKCE challenge, the granted scopes, the
 * resource and the nonce.
 */

let server: TestServer
let client: TestClient
let person: TestPerson

beforeAll(async () => {
  server = await startTestServer()
  client = await registerTestClient(server)
  person = await createPerson(server)
})
afterAll(async () => {
  await server?.close()
})

/** Every value of every table, as one string, to search for secrets. */
async function databaseText(): Promise<string> {
  const db = server.deps.database.db
  const tables = await db.introspection.getTables()
  expect(tables.map((t) => t.name)).toContain('authorization_codes')
  const dumps: string[] = []
  for (const table of tables) {
    const { rows } = await sql`select * from ${sql.table(table.name)}`.execute(db)
    dumps.push(JSON.stringify(rows))
  }
  return dumps.join('\n')
}

describe('codes carry at least 128 bits of randomness', () => {
  it('is pac_ followed by 43 base64url characters (256 bits)', async () => {
    const { code } = await runAuthorization(server, client, person)
    expect(code).toMatch(/^pac_[A-Za-z0-9_-]{43}$/)
  })

  it('is different every time', async () => {
    const codes = new Set<string>()
    const browser = new Browser(server)
    for (let i = 0; i < 5; i++) {
      const { code } = await runAuthorization(server, client, person, { browser })
      codes.add(code ?? '')
    }
    expect(codes.size).toBe(5)
  })
})

describe('codes are stored hashed', () => {
  it('stores the SHA-256 digest and never the code itself', async () => {
    const { code } = await runAuthorization(server, client, person)
    const text = await databaseText()
    expect(code).toBeDefined()
    expect(text).not.toContain(code ?? '')
    expect(text).not.toContain((code ?? '').slice(4))
    expect(text).toContain(digest(code ?? ''))
    expect((await codeRow(server, code ?? ''))?.code_digest).toBe(digest(code ?? ''))
  })

  it('stores neither the request id, the CSRF token nor the session token in the clear', async () => {
    const browser = new Browser(server)
    const form = await openConsent(browser, client, person)
    const session = [...browser.cookies].find(([name]) => name.includes('session'))?.[1] ?? ''
    expect(session).toMatch(/^pss_/)
    const text = await databaseText()
    for (const secret of [form.request, form.csrf, session]) {
      expect(text).not.toContain(secret)
      expect(text).toContain(digest(secret))
    }
  })

  it('does not write the code into the log', async () => {
    const { code } = await runAuthorization(server, client, person)
    expect(server.logText()).not.toContain(code ?? '')
  })
})

describe('codes live 60 seconds', () => {
  it('expires 60 000 ms after it was issued', async () => {
    const { code } = await runAuthorization(server, client, person)
    const row = await codeRow(server, code ?? '')
    expect(Number(row?.expires_at) - Number(row?.created_at)).toBe(60_000)
    expect(Math.abs(Number(row?.created_at) - Date.now())).toBeLessThan(60_000)
    expect(row?.consumed_at).toBeNull()
  })
})

describe('codes are bound to what was authorized', () => {
  it('is bound to the client and the person', async () => {
    const other = await registerTestClient(server)
    const { code } = await runAuthorization(server, other, person)
    const row = await codeRow(server, code ?? '')
    expect(row?.client_id).toBe(other.clientId)
    expect(row?.client_id).not.toBe(client.clientId)
    expect(row?.user_id).toBe(person.user.id)
  })

  it('is bound to the exact redirect_uri used, port included', async () => {
    const used = 'http://127.0.0.1:50505/callback'
    const { code, location } = await runAuthorization(server, client, person, {
      extra: { redirect_uri: used },
    })
    expect(location.port).toBe('50505')
    expect((await codeRow(server, code ?? ''))?.redirect_uri).toBe(used)
  })

  it('is bound to the PKCE challenge', async () => {
    const pkce = createPkce()
    const { code } = await runAuthorization(server, client, person, { pkce })
    expect((await codeRow(server, code ?? ''))?.code_challenge).toBe(pkce.challenge)
  })

  it('is bound to the granted scopes', async () => {
    const { code } = await runAuthorization(server, client, person, {
      extra: { scope: 'openid email courses:write' },
    })
    expect((await codeRow(server, code ?? ''))?.scope).toBe('openid email courses:write')
  })

  it('is bound to the nonce', async () => {
    const { code } = await runAuthorization(server, client, person, { extra: { nonce: 'n-42' } })
    expect((await codeRow(server, code ?? ''))?.nonce).toBe('n-42')
  })

  it("is bound to Portico's own API when no resource is named", async () => {
    const { code } = await runAuthorization(server, client, person)
    expect((await codeRow(server, code ?? ''))?.resource).toBe(server.issuer)
  })

  it('is bound to the issuer when the resource names it with a trailing slash', async () => {
    const { code } = await runAuthorization(server, client, person, {
      extra: { resource: `${server.issuer}/` },
    })
    expect((await codeRow(server, code ?? ''))?.resource).toBe(server.issuer)
  })

  it('is bound to a resource an operator registered', async () => {
    await server.deps.resourceServers.insert({
      id: server.deps.random.id('rsv'),
      identifier: 'https://reports.school.example',
      name: 'Reports',
      secretDigest: 'unused',
      createdAt: server.deps.clock.now(),
    })
    const { code } = await runAuthorization(server, client, person, {
      extra: { resource: 'https://reports.school.example' },
    })
    expect((await codeRow(server, code ?? ''))?.resource).toBe('https://reports.school.example')
  })

  it('records when the person signed in', async () => {
    const browser = new Browser(server)
    const form = await openConsent(browser, client, person)
    const session = await server.deps.sessions.find(
      digest([...browser.cookies].find(([name]) => name.includes('session'))?.[1] ?? ''),
      Date.now(),
    )
    const code = clientRedirect(await decide(browser, form)).searchParams.get('code') ?? ''
    expect((await codeRow(server, code))?.auth_time).toBe(session?.authTime)
  })

  it('records the grant the code belongs to, with the same client, person and scopes', async () => {
    const { code } = await runAuthorization(server, client, person, {
      extra: { scope: 'openid profile' },
    })
    const row = await codeRow(server, code ?? '')
    const grant = await server.deps.database.db
      .selectFrom('grants')
      .selectAll()
      .where('id', '=', row?.grant_id ?? '')
      .executeTakeFirst()
    expect(grant).toMatchObject({
      client_id: client.clientId,
      user_id: person.user.id,
      scope: 'openid profile',
      resource: server.issuer,
      revoked_at: null,
    })
  })
})
