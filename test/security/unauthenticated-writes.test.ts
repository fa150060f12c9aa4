import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MAX_STORED_METADATA_BYTES } from '../../src/oauth/registration/metadata-size.js'
import { TestClock } from '../http/authorize/support.js'
import {
  authorizePath,
  Browser,
  createPerson,
  createPkce,
  registerTestClient,
  runAuthorization,
  type Target,
  type TestClient,
} from '../support/flow.js'
import { formInit, readJson } from '../support/http.js'
import { exchangeCode, type Instances, refresh, startInstances } from '../support/instances.js'
import { countClients, LOOPBACK, register } from '../support/registration.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { needsPostgres } from '../support/skips.js'

/**
 * Issue 16, "Unauthenticated writes are bounded": what anyone can make Portico store or try
 * without signing in is bounded per client address. Servers sit behind one trusted proxy
 * (PORTICO_TRUST_PROXY=1) so that each simulated client has an address of its own.
 */

/** A server as seen from one client address. */
function from(address: string, at: Target): Target {
  return {
    fetch: (path, init) => {
      const headers = new Headers(init?.headers)
      headers.set('x-forwarded-for', address)
      return at.fetch(path, { ...init, headers })
    },
  }
}

async function pendingRequests(server: Pick<TestServer, 'deps'>): Promise<number> {
  const row = await server.deps.database.db
    .selectFrom('authorization_requests')
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/** One anonymous authorization request from `address`: its status (303 to /login when stored). */
async function authorizeFrom(at: Target, client: TestClient, address: string) {
  const response = await new Browser(from(address, at)).request(authorizePath(client, createPkce()))
  const body = await response.text()
  return { status: response.status, response, body }
}

async function expectTooMany(answer: Awaited<ReturnType<typeof authorizeFrom>>) {
  expect(answer.status).toBe(429)
  expect(answer.response.headers.get('content-type')).toMatch(/^text\/html/)
  expect(Number(answer.response.headers.get('retry-after'))).toBeGreaterThan(0)
  expect(answer.response.headers.get('location')).toBeNull()
  expect(answer.body).toContain('Too many sign-in requests')
}

describe('a flood of anonymous authorization requests from one address', () => {
  const clock = new TestClock()
  let server: TestServer
  let client: TestClient
  beforeAll(async () => {
    server = await startTestServer({
      clock,
      env: { PORTICO_TRUST_PROXY: '1', PORTICO_AUTHORIZE_RATE_LIMIT: '5' },
    })
    client = await registerTestClient(server)
  })
  afterAll(async () => {
    await server?.close()
  })

  it('is answered 429 with Retry-After past PORTICO_AUTHORIZE_RATE_LIMIT a minute, storing nothing more', async () => {
    clock.advance(60_000 - (clock.now() % 60_000))
    const before = await pendingRequests(server)
    for (let i = 0; i < 5; i++) {
      const answer = await authorizeFrom(server, client, '203.0.113.1')
      expect(answer.status).toBe(303)
      expect(answer.response.headers.get('location')).toMatch(/^\/login\?request=/)
    }
    await expectTooMany(await authorizeFrom(server, client, '203.0.113.1'))
    expect(await pendingRequests(server)).toBe(before + 5)
    // Another address is not held back, and the next minute the first one is served again.
    expect((await authorizeFrom(server, client, '203.0.113.2')).status).toBe(303)
    clock.advance(60_000)
    expect((await authorizeFrom(server, client, '203.0.113.1')).status).toBe(303)
  })

  it('does not hold back a person already signed in at that address', async () => {
    clock.advance(60_000 - (clock.now() % 60_000))
    const person = await createPerson(server)
    for (let i = 0; i < 6; i++) await authorizeFrom(server, client, '203.0.113.3')
    await expectTooMany(await authorizeFrom(server, client, '203.0.113.3'))
    const result = await runAuthorization(from('203.0.113.4', server), client, person)
    const browser = new Browser(from('203.0.113.3', server))
    for (const [name, value] of result.browser.cookies) browser.cookies.set(name, value)
    const consent = await browser.request(authorizePath(client, createPkce()))
    expect(consent.status).toBe(200)
    expect(await consent.text()).toContain('name="decision"')
  })
})

describe('the pending authorization requests of one address', () => {
  const clock = new TestClock()
  let server: TestServer
  let client: TestClient
  beforeAll(async () => {
    server = await startTestServer({
      clock,
      env: { PORTICO_TRUST_PROXY: '1', PORTICO_PENDING_AUTHORIZATIONS_PER_ADDRESS: '3' },
    })
    client = await registerTestClient(server)
  })
  afterAll(async () => {
    await server?.close()
  })

  it('are capped at PORTICO_PENDING_AUTHORIZATIONS_PER_ADDRESS, even sent all at once', async () => {
    const before = await pendingRequests(server)
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => authorizeFrom(server, client, '203.0.113.10')),
    )
    expect(answers.filter((a) => a.status === 303)).toHaveLength(3)
    for (const answer of answers.filter((a) => a.status !== 303)) await expectTooMany(answer)
    expect(await pendingRequests(server)).toBe(before + 3)
    expect((await authorizeFrom(server, client, '203.0.113.11')).status).toBe(303)
  })

  it('make room again as they expire or are decided', async () => {
    for (let i = 0; i < 3; i++) await authorizeFrom(server, client, '203.0.113.12')
    await expectTooMany(await authorizeFrom(server, client, '203.0.113.12'))
    clock.advance(10 * 60_000 + 1000)
    expect((await authorizeFrom(server, client, '203.0.113.12')).status).toBe(303)
    // A request decided (here: signed in and approved) no longer counts.
    const person = await createPerson(server)
    const decided = await runAuthorization(from('203.0.113.12', server), client, person)
    expect(decided.code).toBeDefined()
    expect((await authorizeFrom(server, client, '203.0.113.12')).status).toBe(303)
    expect((await authorizeFrom(server, client, '203.0.113.12')).status).toBe(303)
    await expectTooMany(await authorizeFrom(server, client, '203.0.113.12'))
  })
})

describe('open registration stores bounded metadata', () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer()
  })
  afterAll(async () => {
    await server?.close()
  })

  /** `n` loopback redirect URIs whose paths are `length` characters long. */
  function longUris(n: number, length: number): string[] {
    return Array.from({ length: n }, (_, i) => `http://127.0.0.1:${8000 + i}/${'p'.repeat(length)}`)
  }

  it('refuses metadata over 8 KiB with invalid_client_metadata (RFC 7591 §3.2.2), storing nothing', async () => {
    const before = await countClients(server)
    const answer = await register(server, {
      client_name: 'Bulky tool',
      redirect_uris: longUris(10, 1000),
    })
    expect(answer.status).toBe(400)
    expect(answer.body.error).toBe('invalid_client_metadata')
    expect(answer.body.error_description).toContain(String(MAX_STORED_METADATA_BYTES))
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/)
    expect(await countClients(server)).toBe(before)
  })

  it('accepts metadata under the bound', async () => {
    const answer = await register(server, { redirect_uris: longUris(7, 1000) })
    expect(answer.status).toBe(201)
    expect(answer.body.redirect_uris).toHaveLength(7)
  })

  it('refuses more than 10 redirect URIs', async () => {
    const before = await countClients(server)
    const answer = await register(server, {
      redirect_uris: Array.from({ length: 11 }, (_, i) => `http://127.0.0.1:${9000 + i}/cb`),
    })
    expect(answer.status).toBe(400)
    expect(answer.body.error).toBe('invalid_client_metadata')
    expect(await countClients(server)).toBe(before)
  })

  it('does not count unknown fields, which are never stored', async () => {
    const answer = await register(server, {
      redirect_uris: [LOOPBACK],
      logo_uri: `https://example.com/${'x'.repeat(20_000)}`,
    })
    expect(answer.status).toBe(201)
  })
})

describe('guessed codes and refresh tokens at the token endpoint', () => {
  let server: TestServer
  let client: TestClient
  beforeAll(async () => {
    server = await startTestServer({
      env: { PORTICO_TRUST_PROXY: '1', PORTICO_INVALID_GRANT_LIMIT: '5' },
    })
    client = await registerTestClient(server)
  })
  afterAll(async () => {
    await server?.close()
  })

  function guess(at: Target, i: number): Promise<Response> {
    return at.fetch(
      '/api/oauth/token',
      formInit(
        i % 2
          ? {
              grant_type: 'refresh_token',
              refresh_token: `prt_guess${i}`,
              client_id: client.clientId,
            }
          : {
              grant_type: 'authorization_code',
              code: `pac_guess${i}`,
              client_id: client.clientId,
              redirect_uri: client.redirectUri,
              code_verifier: 'v'.repeat(43),
            },
      ),
    )
  }

  it('end in 429 slow_down with Retry-After after PORTICO_INVALID_GRANT_LIMIT refusals, for that client and address', async () => {
    const attacker = from('203.0.113.20', server)
    for (let i = 0; i < 5; i++) {
      const response = await guess(attacker, i)
      expect(response.status).toBe(400)
      expect((await readJson(response)).error).toBe('invalid_grant')
    }
    const limited = await guess(attacker, 5)
    expect(limited.status).toBe(429)
    expect(limited.headers.get('content-type')).toMatch(/^application\/json/)
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0)
    expect((await readJson(limited)).error).toBe('slow_down')
    // The same client from another address is not held back: its real code is redeemed.
    const person = await createPerson(server)
    const elsewhere = from('203.0.113.21', server)
    const flow = await runAuthorization(elsewhere, client, person)
    const tokens = await exchangeCode(elsewhere, client, flow)
    expect(tokens.status).toBe(200)
    // A real refresh token from the attacker's address is held back too until the window ends.
    const { refresh_token } = await readJson(tokens)
    const held = await refresh(attacker, client, refresh_token)
    expect(held.status).toBe(429)
    await held.arrayBuffer()
  })

  it('the loser of two concurrent refreshes (within the grace period) guessed nothing and does not count', async () => {
    const person = await createPerson(server)
    const at = from('203.0.113.23', server)
    const flow = await runAuthorization(at, client, person)
    let current = (await readJson(await exchangeCode(at, client, flow))).refresh_token as string
    for (let i = 0; i < 7; i++) {
      const winner = await refresh(at, client, current)
      expect(winner.status).toBe(200)
      const loser = await refresh(at, client, current)
      expect(loser.status).toBe(400)
      expect((await readJson(loser)).error).toBe('invalid_grant')
      current = (await readJson(winner)).refresh_token
    }
    const still = await refresh(at, client, current)
    expect(still.status).toBe(200)
    await still.arrayBuffer()
  })

  it('a concurrent burst of guesses is tried at most PORTICO_INVALID_GRANT_LIMIT times', async () => {
    const attacker = from('203.0.113.24', server)
    const answers = await Promise.all(Array.from({ length: 15 }, (_, i) => guess(attacker, i)))
    const statuses = answers.map((a) => a.status)
    expect(statuses.filter((s) => s === 400)).toHaveLength(5)
    expect(statuses.filter((s) => s === 429)).toHaveLength(10)
    for (const answer of answers) await answer.arrayBuffer()
    const after = await guess(attacker, 15)
    expect(after.status).toBe(429)
    await after.arrayBuffer()
  })

  it('successful exchanges do not count', async () => {
    const person = await createPerson(server)
    const at = from('203.0.113.22', server)
    const other = await registerTestClient(server)
    for (let i = 0; i < 7; i++) {
      const flow = await runAuthorization(at, other, person)
      const response = await exchangeCode(at, other, flow)
      expect(response.status).toBe(200)
      await response.arrayBuffer()
    }
  })
})

describe('real but expired refresh tokens at the token endpoint', () => {
  const clock = new TestClock()
  let server: TestServer
  let client: TestClient
  beforeAll(async () => {
    server = await startTestServer({
      clock,
      env: { PORTICO_TRUST_PROXY: '1', PORTICO_INVALID_GRANT_LIMIT: '3' },
    })
    client = await registerTestClient(server)
  })
  afterAll(async () => {
    await server?.close()
  })

  it('guessed nothing: after a mass expiry, a shared address is not held back', async () => {
    const shared = from('203.0.113.25', server)
    const person = await createPerson(server)
    const tokens: string[] = []
    for (let i = 0; i < 6; i++) {
      const flow = await runAuthorization(shared, client, person)
      tokens.push((await readJson(await exchangeCode(shared, client, flow))).refresh_token)
    }
    clock.advance((server.deps.config.lifetimes.refreshToken + 1) * 1000)
    for (const token of tokens) {
      const response = await refresh(shared, client, token)
      expect(response.status).toBe(400)
      expect((await readJson(response)).error).toBe('invalid_grant')
    }
    // Guesses still count from the same address, and only they.
    for (let i = 0; i < 3; i++) {
      const response = await refresh(shared, client, `prt_guess_expired${i}`)
      expect(response.status).toBe(400)
      await response.arrayBuffer()
    }
    const limited = await refresh(shared, client, 'prt_guess_expired_more')
    expect(limited.status).toBe(429)
    await limited.arrayBuffer()
  })
})

const skip = needsPostgres(
  'unauthenticated-write budgets shared by three instances (test/security)',
)

describe.skipIf(skip)('three instances share the unauthenticated-write budgets', () => {
  let cluster: Instances
  let client: TestClient
  beforeAll(async () => {
    cluster = await startInstances(3, {
      env: {
        PORTICO_TRUST_PROXY: '1',
        PORTICO_PENDING_AUTHORIZATIONS_PER_ADDRESS: '4',
        PORTICO_INVALID_GRANT_LIMIT: '4',
      },
    })
    client = await registerTestClient(cluster.at(0))
  })
  afterAll(async () => {
    await cluster?.stop()
  })

  it('a burst over three instances stores at most the cap of pending requests for one address', async () => {
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        authorizeFrom(cluster.at(i % 3), client, '203.0.113.30'),
      ),
    )
    expect(answers.filter((a) => a.status === 303)).toHaveLength(4)
    for (const answer of answers.filter((a) => a.status !== 303)) await expectTooMany(answer)
    const rows = await cluster.deps.database.db
      .selectFrom('authorization_requests')
      .select('id_digest')
      .where('address_digest', 'is not', null)
      .execute()
    expect(rows).toHaveLength(4)
  })

  it('invalid_grant answers on every instance count together', async () => {
    const fields = { grant_type: 'refresh_token', client_id: client.clientId }
    for (let i = 0; i < 4; i++) {
      const at = from('203.0.113.60', cluster.at(i % 3))
      const response = await at.fetch(
        '/api/oauth/token',
        formInit({ ...fields, refresh_token: `prt_guess${i}` }),
      )
      expect(response.status).toBe(400)
      await response.arrayBuffer()
    }
    for (const at of [0, 1, 2]) {
      const response = await from('203.0.113.60', cluster.at(at)).fetch(
        '/api/oauth/token',
        formInit({ ...fields, refresh_token: 'prt_guess_more' }),
      )
      expect(response.status).toBe(429)
      expect((await readJson(response)).error).toBe('slow_down')
    }
  })
})
