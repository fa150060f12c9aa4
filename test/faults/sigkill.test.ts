import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type CliServer, startCliServer } from '../support/cli-server.js'
import {
  Browser,
  type FlowResult,
  registerTestClient,
  runAuthorization,
  type TestClient,
} from '../support/flow.js'
import { heldFormRequest } from '../support/held-request.js'
import { formInit, type Json, readJson } from '../support/http.js'
import {
  apiStatus,
  exchangeCode,
  type Instances,
  refresh,
  startInstances,
  target,
} from '../support/instances.js'

/**
 * An instance is killed with SIGKILL while it issues tokens for many concurrent requests.
 * Another instance on the same database then finds no code that can be redeemed twice and
 * no grant that survives its revocation.
 */
const CODES = 40
const REFRESHES = 20

let cluster: Instances
let survivor: CliServer | undefined
let client: TestClient
let codes: FlowResult[]
let refreshed: Json[]
/** What the killed instance answered before it died, per request. */
let answered: Array<Json | undefined>

beforeAll(async () => {
  cluster = await startInstances(1)
  const person = await cluster.person()
  client = await registerTestClient(cluster.at(0))
  const browser = new Browser(cluster.at(0))
  // Signed in once; then every authorization at once, each with its own consent.
  await runAuthorization(cluster.at(0), client, person, { browser })
  const flows = await Promise.all(
    Array.from({ length: CODES + REFRESHES }, () =>
      runAuthorization(cluster.at(0), client, person, { browser }),
    ),
  )
  codes = flows.slice(0, CODES)
  refreshed = await Promise.all(
    flows
      .slice(CODES)
      .map(async (flow) => readJson(await exchangeCode(cluster.at(0), client, flow))),
  )

  const [victim] = cluster.servers
  if (!victim) throw new Error('no server')
  // The last code exchange and the last refresh are held in flight: their bodies are half
  // sent and the rest never follows, so the server cannot have finished them when the kill
  // lands, however fast it answers the others. They go first, the others after.
  const lastCode = codes.at(-1)
  const lastRefresh = refreshed.at(-1)
  if (!lastCode || !lastRefresh) throw new Error('no flows')
  const held = [
    heldFormRequest(victim.url, '/api/oauth/token', {
      grant_type: 'authorization_code',
      code: lastCode.code ?? '',
      client_id: client.clientId,
      redirect_uri: client.redirectUri,
      code_verifier: lastCode.pkce.verifier,
    }),
    heldFormRequest(victim.url, '/api/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: lastRefresh.refresh_token,
      client_id: client.clientId,
    }),
  ]
  await Promise.all(held.map((request) => request.sent))
  // Killed once a quarter of the other requests are answered: the rest are anywhere between
  // not yet read and half-way through their database writes.
  let answers = 0
  const killAtAQuarter = () => {
    answers += 1
    if (answers === (CODES + REFRESHES) / 4) victim.kill('SIGKILL')
  }
  const [heldCode, heldRefresh] = held
  const requests: Array<Promise<Response | undefined>> = [
    ...codes
      .slice(0, -1)
      .map((flow) => exchangeCode(cluster.at(0), client, flow).then(countAnswer)),
    heldCode ? heldCode.answered.then(() => undefined) : Promise.resolve(undefined),
    ...refreshed
      .slice(0, -1)
      .map((tokens) => refresh(cluster.at(0), client, tokens.refresh_token).then(countAnswer)),
    heldRefresh ? heldRefresh.answered.then(() => undefined) : Promise.resolve(undefined),
  ]
  function countAnswer(response: Response): Response {
    killAtAQuarter()
    return response
  }
  answered = await Promise.all(
    requests.map(async (request) => {
      try {
        const response = await request
        return response?.status === 200 ? await readJson(response) : undefined
      } catch {
        return undefined
      }
    }),
  )
  expect(await victim.exited).toBeNull()
  survivor = await startCliServer(cluster.env)
}, 120_000)
afterAll(async () => {
  await survivor?.stop()
  await cluster?.stop()
})

describe('SIGKILL in the middle of token issuance', () => {
  it('was killed while requests were still in flight', () => {
    // At least the two held requests; usually many more.
    const cut = answered.filter((a) => a === undefined).length
    expect(cut).toBeGreaterThanOrEqual(2)
    expect(answered[CODES - 1]).toBeUndefined()
    expect(answered.at(-1)).toBeUndefined()
  })

  it('leaves no code that can be redeemed twice', async () => {
    const at = target(survivor?.url ?? '')
    const checks = codes.map(async (flow, i) => {
      const first = await exchangeCode(at, client, flow)
      const second = await exchangeCode(at, client, flow)
      const statuses = [answered[i] ? 200 : 0, first.status, second.status].filter((s) => s === 200)
      expect(statuses.length, `code ${i} redeemed ${statuses.length} times`).toBeLessThanOrEqual(1)
      expect(second.status).toBe(400)
      // Whoever got tokens for it, the replay revoked them.
      for (const body of [answered[i], first.status === 200 ? await readJson(first) : undefined]) {
        if (body) expect(await apiStatus(at, body.access_token)).toBe(401)
      }
      if (first.status !== 200) await first.arrayBuffer()
      await second.arrayBuffer()
    })
    await Promise.all(checks)
  })

  it('forks no refresh chain, and a revoked grant keeps no live token', async () => {
    const at = target(survivor?.url ?? '')
    const { db } = cluster.deps.database
    const forks = await db
      .selectFrom('refresh_tokens')
      .select((eb) => ['grant_id', eb.fn.countAll().as('live')])
      .where('client_id', '=', client.clientId)
      .where('rotated_at', 'is', null)
      .groupBy('grant_id')
      .execute()
    for (const fork of forks) expect(Number(fork.live)).toBe(1)

    for (const [i, tokens] of refreshed.entries()) {
      const revoke = await at.fetch(
        '/api/oauth/revoke',
        formInit({ token: tokens.refresh_token, client_id: client.clientId }),
      )
      expect(revoke.status).toBe(200)
      expect(await apiStatus(at, tokens.access_token)).toBe(401)
      const late = answered[CODES + i]
      if (late) {
        expect(await apiStatus(at, late.access_token)).toBe(401)
        const again = await refresh(at, client, late.refresh_token)
        expect(again.status).toBe(400)
        await again.arrayBuffer()
      }
    }
    const live = await db
      .selectFrom('access_tokens as t')
      .innerJoin('grants as g', 'g.id', 't.grant_id')
      .select('t.grant_id')
      .where('t.client_id', '=', client.clientId)
      .where('g.revoked_at', 'is', null)
      .execute()
    expect(live).toEqual([])
  })
})
