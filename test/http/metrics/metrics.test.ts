import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  Browser,
  createPerson,
  formField,
  registerTestClient,
  runAuthorization,
} from '../../support/flow.js'
import { formInit, readJson } from '../../support/http.js'
import { exchangeCode, refresh } from '../../support/instances.js'
import { startTestServer, type TestServer } from '../../support/server.js'

/** The value of one sample of the Prometheus text format, or undefined when absent. */
function sample(
  text: string,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue
    const wanted = Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))
    if (wanted) return Number(line.slice(line.lastIndexOf(' ') + 1))
  }
  return undefined
}

describe('metrics are not exposed unless configured', () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer()
  })
  afterAll(async () => {
    await server?.close()
  })

  it('has no metrics listener and no /metrics on the public port', async () => {
    expect(server.metricsUrl).toBeUndefined()
    const response = await server.fetch('/metrics')
    expect(response.status).toBe(404)
    await response.arrayBuffer()
  })
})

describe('with PORTICO_METRICS_PORT: Prometheus metrics on a loopback listener of their own', () => {
  let server: TestServer
  let scrape: () => Promise<string>
  beforeAll(async () => {
    server = await startTestServer({ env: { PORTICO_METRICS_PORT: '0' } })
    scrape = async () => {
      const response = await fetch(server.metricsUrl ?? '')
      expect(response.status).toBe(200)
      expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/)
      return response.text()
    }
  })
  afterAll(async () => {
    await server?.close()
  })

  it('listens on 127.0.0.1, apart from the public port, which still has no /metrics', async () => {
    const url = new URL(server.metricsUrl ?? '')
    expect(url.hostname).toBe('127.0.0.1')
    expect(url.port).not.toBe(new URL(server.url).port)
    expect(url.pathname).toBe('/metrics')
    expect((await server.fetch('/metrics')).status).toBe(404)
    expect((await fetch(`${url.origin}/other`)).status).toBe(404)
  })

  it('counts tokens issued, refreshes, revocations and failed sign-ins', async () => {
    const person = await createPerson(server)
    const browser = new Browser(server)
    const page = await (await browser.request('/login')).text()
    const failed = await browser.post('/login', {
      csrf: formField(page, 'csrf') ?? '',
      email: person.email,
      password: 'not the password',
    })
    expect(failed.status).toBe(401)

    const client = await registerTestClient(server)
    const flow = await runAuthorization(server, client, person)
    const tokens = await readJson(await exchangeCode(server, client, flow))
    const rotated = await readJson(await refresh(server, client, tokens.refresh_token))
    const revoked = await server.fetch(
      '/api/oauth/revoke',
      formInit({ token: rotated.refresh_token, client_id: client.clientId }),
    )
    expect(revoked.status).toBe(200)

    const text = await scrape()
    expect(sample(text, 'portico_tokens_issued_total', { grant_type: 'authorization_code' })).toBe(
      1,
    )
    expect(sample(text, 'portico_tokens_issued_total', { grant_type: 'refresh_token' })).toBe(1)
    expect(sample(text, 'portico_token_refreshes_total', { outcome: 'rotated' })).toBe(1)
    expect(sample(text, 'portico_grant_revocations_total', { source: 'revocation_endpoint' })).toBe(
      1,
    )
    expect(sample(text, 'portico_sign_in_failures_total', { reason: 'credentials' })).toBe(1)
  })

  it('counts requests and their latency per route pattern and status', async () => {
    const text = await scrape()
    const token = { method: 'POST', route: '/api/oauth/token', status: '200' }
    expect(sample(text, 'portico_http_requests_total', token)).toBe(2)
    expect(sample(text, 'portico_http_requests_total', { route: '/login', status: '401' })).toBe(1)
    expect(
      sample(text, 'portico_http_request_duration_seconds_count', {
        method: 'POST',
        route: '/api/oauth/token',
      }),
    ).toBe(2)
    expect(text).toMatch(/portico_http_request_duration_seconds_bucket\{[^}]*le="0\.05"/)
  })

  it('reports the database pool on PostgreSQL, and the process’s own metrics', async () => {
    const text = await scrape()
    if (server.deps.database.dialect === 'postgres') {
      expect(sample(text, 'portico_db_pool_connections', { state: 'max' })).toBe(10)
      expect(sample(text, 'portico_db_pool_connections', { state: 'open' })).toBeGreaterThan(0)
      expect(sample(text, 'portico_db_pool_waiting_requests')).toBe(0)
    }
    expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(0)
    expect(text).toContain('nodejs_eventloop_lag_seconds')
  })
})
