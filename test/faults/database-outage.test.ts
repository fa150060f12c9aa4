import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { registerTestClient, runAuthorization, type TestClient } from '../support/flow.js'
import { type Json, jsonInit, readJson } from '../support/http.js'
import { exchangeCode, type Instances, refresh, startInstances } from '../support/instances.js'
import {
  type OwnedPostgres,
  ownedPostgresUnavailable,
  startOwnedPostgres,
} from '../support/owned-postgres.js'
import { needsPostgres, skipBecause } from '../support/skips.js'

/**
 * The database goes away under a running Portico: a PostgreSQL server of the test's own is
 * stopped (and, separately, frozen), then brought back.
 */
const skip =
  needsPostgres('stopping and starting the database (test/faults/database-outage)') ||
  skipBecause(ownedPostgresUnavailable())

let owned: OwnedPostgres
let cluster: Instances
let client: TestClient
let tokens: Json

beforeAll(async () => {
  if (skip) return
  owned = await startOwnedPostgres()
  // A short bound on every statement and connection wait, so a frozen database is noticed fast.
  cluster = await startInstances(1, {
    databaseUrl: owned.url,
    env: { PORTICO_DATABASE_TIMEOUT: '2' },
  })
  client = await registerTestClient(cluster.at(0))
  const flow = await runAuthorization(cluster.at(0), client, await cluster.person())
  tokens = await readJson(await exchangeCode(cluster.at(0), client, flow))
}, 60_000)
afterAll(async () => {
  await cluster?.stop()
  await owned?.destroy()
})

/** A request that must be answered, not hang: the answer and how long it took. */
async function timed(path: string, init: RequestInit = {}) {
  const started = Date.now()
  const response = await cluster.at(0).fetch(path, { ...init, signal: AbortSignal.timeout(15_000) })
  const text = await response.text()
  return { response, text, ms: Date.now() - started }
}

function expectUnavailable(answer: { response: Response; text: string }, type: RegExp): void {
  expect(answer.response.status).toBe(503)
  expect(Number(answer.response.headers.get('retry-after'))).toBeGreaterThan(0)
  expect(answer.response.headers.get('content-type')).toMatch(type)
  // Never a stack, a driver message or an address.
  expect(answer.text).not.toMatch(/ at |ECONNREFUSED|terminat|postgres|127\.0\.0\.1:/i)
}

/** Each way Portico answers, with the format it must keep while the database is away. */
async function expectEveryFormatUnavailable(boundMs: number): Promise<void> {
  const answers = await Promise.all([
    timed('/api/oauth/token', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token,
        client_id: client.clientId,
      }).toString(),
    }),
    timed('/api/oauth/register', jsonInit({ redirect_uris: ['http://127.0.0.1:8080/cb'] })),
    timed('/api/v1', { headers: { authorization: `Bearer ${tokens.access_token}` } }),
    timed('/api/v1'),
    timed('/login'),
    timed('/readyz'),
  ])
  const [token, register, api, anonymous, login, ready] = answers
  for (const oauth of [token, register]) {
    if (!oauth) throw new Error('missing answer')
    expectUnavailable(oauth, /^application\/json/)
    expect(JSON.parse(oauth.text)).toEqual({
      error: 'temporarily_unavailable',
      error_description: expect.any(String),
    })
  }
  for (const problem of [api, anonymous]) {
    if (!problem) throw new Error('missing answer')
    expectUnavailable(problem, /^application\/problem\+json/)
    expect(JSON.parse(problem.text)).toMatchObject({ status: 503, code: 'temporarily_unavailable' })
  }
  if (!login || !ready) throw new Error('missing answer')
  expectUnavailable(login, /^text\/html/)
  expect(login.text).toContain('Temporarily unavailable')
  expect(ready.response.status).toBe(503)
  expect(JSON.parse(ready.text)).toEqual({ status: 'unavailable' })
  for (const answer of answers) expect(answer.ms).toBeLessThan(boundMs)
}

/** Polls /readyz until it is green again, and then the token endpoint works. */
async function expectRecovery(): Promise<number> {
  const started = Date.now()
  for (;;) {
    const response = await cluster.at(0).fetch('/readyz')
    await response.arrayBuffer()
    if (response.status === 200) break
    expect(Date.now() - started, '/readyz still red').toBeLessThan(20_000)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  const refreshed = await refresh(cluster.at(0), client, tokens.refresh_token)
  expect(refreshed.status).toBe(200)
  tokens = await readJson(refreshed)
  const api = await cluster
    .at(0)
    .fetch('/api/v1', { headers: { authorization: `Bearer ${tokens.access_token}` } })
  expect(api.status).toBe(200)
  await api.arrayBuffer()
  return Date.now() - started
}

describe.skipIf(skip)('the database going away', () => {
  it('stopped: 503 with Retry-After in each endpoint’s format, /readyz red, /healthz green', async () => {
    await owned.stop()
    await expectEveryFormatUnavailable(3000)
    const health = await cluster.at(0).fetch('/healthz')
    expect(health.status).toBe(200)
    await health.arrayBuffer()
  })

  it('started again: Portico recovers by itself', async () => {
    await owned.start()
    expect(await expectRecovery()).toBeLessThan(20_000)
  })

  it('frozen (answers nothing): 503 within the configured bound, never a hang', async () => {
    await owned.freeze()
    try {
      // PORTICO_DATABASE_TIMEOUT=2: a connection within 1 s, a statement within 2 s (+2 s on the client).
      await expectEveryFormatUnavailable(7000)
    } finally {
      await owned.thaw()
    }
    await expectRecovery()
  })

  it('answered nothing as a 500 and logged no unexpected error meanwhile', () => {
    const output = cluster.servers[0]?.output() ?? ''
    expect(output).not.toContain('unexpected error')
    expect(output).not.toMatch(/"status":500/)
  })
})
