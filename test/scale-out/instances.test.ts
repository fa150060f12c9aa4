import { decodeProtectedHeader } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../support/cli.js'
import {
  Browser,
  registerTestClient,
  runAuthorization,
  type TestClient,
  type TestPerson,
} from '../support/flow.js'
import { formInit, type Json, readJson } from '../support/http.js'
import {
  apiStatus,
  exchangeCode,
  type Instances,
  refresh,
  startInstances,
} from '../support/instances.js'
import { needsPostgres } from '../support/skips.js'

/**
 * Three `portico serve` processes on one PostgreSQL database behave as one server. SQLite
 * is one machine's database: there is nothing to scale out to.
 */
const skip = needsPostgres('several instances on one database (test/scale-out/instances)')

describe.skipIf(skip)('several instances on one PostgreSQL, one truth', () => {
  let cluster: Instances
  let person: TestPerson
  beforeAll(async () => {
    cluster = await startInstances(3)
    person = await cluster.person()
  })
  afterAll(async () => {
    await cluster?.stop()
  })

  /** A code from a full sign-in and consent on instance `at` (the browser keeps its session). */
  async function authorize(client: TestClient, at: number, browser?: Browser) {
    const flow = await runAuthorization(cluster.at(at), client, person, { browser })
    expect(flow.code).toBeDefined()
    return flow
  }

  async function tokensFrom(at: number, client: TestClient): Promise<Json> {
    const flow = await authorize(client, at)
    const response = await exchangeCode(cluster.at(at), client, flow)
    expect(response.status).toBe(200)
    return readJson(response)
  }

  it('knows a client registered on one instance on every other', async () => {
    const client = await registerTestClient(cluster.at(0))
    for (const at of [1, 2]) {
      const response = await cluster
        .at(at)
        .fetch(
          `/oauth/authorize?response_type=code&client_id=${client.clientId}&redirect_uri=${encodeURIComponent(client.redirectUri)}&scope=openid&state=s&code_challenge=${'a'.repeat(43)}&code_challenge_method=S256`,
          { redirect: 'manual' },
        )
      // Known client and redirect URI: on to sign-in, not the error page for an unknown client.
      expect(response.status).toBe(303)
      expect(response.headers.get('location')).toMatch(/^\/login\?/)
    }
  })

  it('redeems a code issued by one instance on another, exactly once', async () => {
    const client = await registerTestClient(cluster.at(0))
    const flow = await authorize(client, 0)
    const first = await exchangeCode(cluster.at(1), client, flow)
    expect(first.status).toBe(200)
    const tokens = await readJson(first)
    const second = await exchangeCode(cluster.at(2), client, flow)
    expect(second.status).toBe(400)
    expect((await readJson(second)).error).toBe('invalid_grant')
    // RFC 6749 §4.1.2: the second redemption revokes what the first one issued, everywhere.
    for (const at of [0, 1, 2])
      expect(await apiStatus(cluster.at(at), tokens.access_token)).toBe(401)
  })

  // As on one instance (test/http/token/code-misuse.test.ts), two interleavings are both
  // right: usually one side redeems the code and gets tokens, and the other, a replay, revokes
  // them; but the replay may revoke the grant between the first side's redemption and its
  // issuing, and then the first is refused too. Never do both sides get tokens.
  it('lets at most one of two instances racing for the same code win', async () => {
    const client = await registerTestClient(cluster.at(0))
    const browser = new Browser(cluster.at(0))
    const flows = []
    for (let i = 0; i < 8; i++) flows.push(await authorize(client, 0, browser))
    const answers = await Promise.all(
      flows.map((flow) =>
        Promise.all([
          exchangeCode(cluster.at(1), client, flow),
          exchangeCode(cluster.at(2), client, flow),
        ]),
      ),
    )
    const winners: string[] = []
    for (const pair of answers) {
      expect([
        [200, 400],
        [400, 400],
      ]).toContainEqual(pair.map((r) => r.status).sort())
      for (const r of pair) {
        const body = await readJson(r)
        if (r.status === 200) winners.push(body.access_token)
        else expect(body.error).toBe('invalid_grant')
      }
    }
    // Each race was lost by a replay, which revoked the grant of any winner.
    for (const token of winners) {
      for (const at of [0, 1, 2]) expect(await apiStatus(cluster.at(at), token)).toBe(401)
    }
    const live = await cluster.deps.database.db
      .selectFrom('grants')
      .select('id')
      .where('client_id', '=', client.clientId)
      .where('revoked_at', 'is', null)
      .execute()
    expect(live).toEqual([])
  })

  it('revokes the grant when a rotated refresh token is replayed on another instance', async () => {
    const client = await registerTestClient(cluster.at(0))
    const tokens = await tokensFrom(0, client)
    const rotated = await refresh(cluster.at(1), client, tokens.refresh_token)
    expect(rotated.status).toBe(200)
    const fresh = await readJson(rotated)

    // Within the grace for concurrent refreshes, a replay is refused and the grant survives.
    const early = await refresh(cluster.at(2), client, tokens.refresh_token)
    expect(early.status).toBe(400)
    await early.arrayBuffer()
    expect(await apiStatus(cluster.at(0), fresh.access_token)).toBe(200)

    // Eleven seconds later (moved in the database rather than waited for), it is theft.
    await cluster.deps.database.db
      .updateTable('refresh_tokens')
      .set((eb) => ({ rotated_at: eb('rotated_at', '-', 11_000) }))
      .where('client_id', '=', client.clientId)
      .where('rotated_at', 'is not', null)
      .execute()
    const replay = await refresh(cluster.at(2), client, tokens.refresh_token)
    expect(replay.status).toBe(400)
    expect((await readJson(replay)).error).toBe('invalid_grant')
    for (const at of [0, 1, 2])
      expect(await apiStatus(cluster.at(at), fresh.access_token)).toBe(401)
    const again = await refresh(cluster.at(0), client, fresh.refresh_token)
    expect(again.status).toBe(400)
    await again.arrayBuffer()
  })

  it('refuses a token revoked on one instance at the next API call on every other', async () => {
    const client = await registerTestClient(cluster.at(0))
    const tokens = await tokensFrom(0, client)
    for (const at of [0, 1, 2])
      expect(await apiStatus(cluster.at(at), tokens.access_token)).toBe(200)
    const revoked = await cluster
      .at(1)
      .fetch(
        '/api/oauth/revoke',
        formInit({ token: tokens.access_token, client_id: client.clientId }),
      )
    expect(revoked.status).toBe(200)
    for (const at of [2, 0]) expect(await apiStatus(cluster.at(at), tokens.access_token)).toBe(401)

    // Revoking the refresh token ends the grant: a second access token dies with it.
    const second = await readJson(await refresh(cluster.at(2), client, tokens.refresh_token))
    expect(await apiStatus(cluster.at(0), second.access_token)).toBe(200)
    await cluster
      .at(0)
      .fetch(
        '/api/oauth/revoke',
        formInit({ token: second.refresh_token, client_id: client.clientId }),
      )
    for (const at of [1, 2, 0])
      expect(await apiStatus(cluster.at(at), second.access_token)).toBe(401)
  })

  it('signs in and asks for consent whichever instance each request lands on', async () => {
    const client = await registerTestClient(cluster.at(0))
    const browser = new Browser(cluster.rotating())
    const flow = await runAuthorization(browser.server, client, person, { browser })
    expect(flow.location.origin + flow.location.pathname).toBe(client.redirectUri)
    expect(flow.location.searchParams.get('iss')).toBe(cluster.issuer)
    const response = await exchangeCode(cluster.at(2), client, flow)
    expect(response.status).toBe(200)
    await response.arrayBuffer()
    // The session made on one instance is known to the others.
    for (let i = 0; i < 3; i++) expect((await browser.request('/account')).status).toBe(200)
  })

  it('uses and publishes a key rotated with `portico keys rotate` on every instance within seconds', async () => {
    const client = await registerTestClient(cluster.at(0))
    const rotation = await runCli(['keys', 'rotate'], { ...cluster.env })
    expect(rotation.code).toBe(0)
    const rotatedAt = Date.now()
    const active = await cluster.deps.database.db
      .selectFrom('signing_keys')
      .select(['kid', 'alg'])
      .where('retired_at', 'is', null)
      .execute()
    const newKid = active.find((k) => k.alg === 'RS256')?.kid
    expect(newKid).toBeDefined()

    const seenAfter: number[] = []
    const browser = new Browser(cluster.at(0))
    for (const at of [0, 1, 2]) {
      for (;;) {
        const jwks = await readJson(await cluster.at(at).fetch('/.well-known/jwks.json'))
        const published = jwks.keys.some((k: Json) => k.kid === newKid)
        const flow = await authorize(client, 0, browser)
        const tokens = await readJson(await exchangeCode(cluster.at(at), client, flow))
        if (published && decodeProtectedHeader(tokens.id_token).kid === newKid) break
        expect(Date.now() - rotatedAt, `instance ${at} still on the old key`).toBeLessThan(15_000)
        await new Promise((resolve) => setTimeout(resolve, 250))
      }
      seenAfter.push(Date.now() - rotatedAt)
    }
    // KeyRing re-reads the keys every 5 s.
    expect(Math.max(...seenAfter)).toBeLessThan(10_000)
  })
})
