import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestClock, issueTestTokens, TOKEN } from '../../support/grants.js'
import { formInit, readJson } from '../../support/http.js'
import { rawRequest } from '../../support/registration.js'
import { startTestServer, type TestServer } from '../../support/server.js'

/** 30 s into a one-minute window; the tests move it. */
const clock = createTestClock(Date.UTC(2030, 0, 1, 12, 0, 30))

let server: TestServer
beforeAll(async () => {
  server = await startTestServer({
    clock,
    env: { PORTICO_TOKEN_RATE_LIMIT: '3', PORTICO_ANONYMOUS_API_RATE_LIMIT: '3' },
  })
})
afterAll(async () => {
  await server?.close()
})

const probe = (clientId: string) => ({
  grant_type: 'refresh_token',
  refresh_token: 'prt_unknown',
  client_id: clientId,
})

function tokenFrom(localAddress: string, clientId: string) {
  return rawRequest(`${server.issuer}${TOKEN}`, {
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(probe(clientId)).toString(),
    localAddress,
  })
}

function anonymousFrom(localAddress: string) {
  return rawRequest(`${server.issuer}/api/v1`, { method: 'GET', localAddress })
}

describe('token endpoint: rate-limited per client_id and client address', () => {
  it('answers 429 slow_down in OAuth JSON with Retry-After once the limit is reached', async () => {
    for (let i = 0; i < 3; i++) {
      const response = await server.fetch(TOKEN, formInit(probe('pci_a')))
      expect(response.status).toBe(401)
      await response.arrayBuffer()
    }
    const response = await server.fetch(TOKEN, formInit(probe('pci_a')))
    expect(response.status).toBe(429)
    expect(response.headers.get('retry-after')).toBe('30')
    expect(response.headers.get('content-type')).toMatch(/^application\/json/)
    expect(response.headers.get('cache-control')).toBe('no-store')
    const body = await readJson(response)
    expect(Object.keys(body).sort()).toEqual(['error', 'error_description'])
    expect(body.error).toBe('slow_down')
  })

  it('counts another client_id, and another address, separately', async () => {
    expect((await tokenFrom('127.0.0.1', 'pci_b')).status).toBe(401)
    expect((await tokenFrom('127.0.0.2', 'pci_a')).status).toBe(401)
    expect((await tokenFrom('127.0.0.1', 'pci_a')).status).toBe(429)
  })

  it('lets a real client with its own budget through', async () => {
    const { client, tokens } = await issueTestTokens(server)
    const response = await server.fetch(
      TOKEN,
      formInit({
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token,
        client_id: client.clientId,
      }),
    )
    expect(response.status).toBe(200)
    await response.arrayBuffer()
  })
})

describe('anonymous API: rate-limited per client address', () => {
  it('answers 429 problem+json with Retry-After after the limit, for /api/v1 without a token', async () => {
    for (let i = 0; i < 3; i++) expect((await anonymousFrom('127.0.0.3')).status).toBe(200)
    const answer = await anonymousFrom('127.0.0.3')
    expect(answer.status).toBe(429)
    expect(answer.headers['retry-after']).toBe('30')
    expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/)
    expect(JSON.parse(answer.text)).toMatchObject({
      status: 429,
      code: 'rate_limited',
      title: 'Too Many Requests',
    })
  })

  it('does not count callers with an access token', async () => {
    const { tokens } = await issueTestTokens(server)
    for (let i = 0; i < 5; i++) {
      const answer = await rawRequest(`${server.issuer}/api/v1`, {
        method: 'GET',
        headers: { authorization: `Bearer ${tokens.access_token}` },
        localAddress: '127.0.0.3',
      })
      expect(answer.status).toBe(200)
    }
  })

  it('counts another address separately, and opens again in the next window', async () => {
    expect((await anonymousFrom('127.0.0.4')).status).toBe(200)
    clock.advance(30_000)
    expect((await anonymousFrom('127.0.0.3')).status).toBe(200)
    expect((await tokenFrom('127.0.0.1', 'pci_a')).status).toBe(401)
  })
})
