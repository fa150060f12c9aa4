import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { jsonInit, readJson } from '../../support/http.js'
import {
  countClients,
  LOOPBACK,
  REGISTER,
  rawRequest,
  register,
} from '../../support/registration.js'
import { startTestServer, type TestServer } from '../../support/server.js'

/** 30 s into a one-minute window, moved by the tests. */
let now = Date.UTC(2030, 0, 1, 12, 0, 30)
const clock = { now: () => now }

let server: TestServer
beforeAll(async () => {
  server = await startTestServer({ clock, env: { PORTICO_REGISTRATION_RATE_LIMIT: '3' } })
})
afterAll(async () => {
  await server?.close()
})

const body = JSON.stringify({ redirect_uris: [LOOPBACK] })

function fromAddress(localAddress: string, headers: Record<string, string> = {}) {
  return rawRequest(`${server.issuer}${REGISTER}`, {
    headers: { 'content-type': 'application/json', ...headers },
    body,
    localAddress,
  })
}

describe('registration is rate-limited per client address (429 with Retry-After)', () => {
  it('allows the configured number of registrations, then answers 429', async () => {
    for (let i = 0; i < 3; i++)
      expect((await register(server, { redirect_uris: [LOOPBACK] })).status).toBe(201)
    const stored = await countClients(server)

    const response = await server.fetch(REGISTER, jsonInit({ redirect_uris: [LOOPBACK] }))
    expect(response.status).toBe(429)
    expect(response.headers.get('retry-after')).toBe('30')
    expect(response.headers.get('content-type')).toMatch(/^application\/json/)
    expect(response.headers.get('cache-control')).toBe('no-store')
    const error = await readJson(response)
    expect(Object.keys(error).sort()).toEqual(['error', 'error_description'])
    expect(error.error).toEqual(expect.any(String))
    expect(error.error_description).toMatch(/retry/i)
    expect(await countClients(server)).toBe(stored)
  })

  it('exposes Retry-After to browser clients', async () => {
    const response = await server.fetch(REGISTER, {
      ...jsonInit({ redirect_uris: [LOOPBACK] }),
      headers: { 'content-type': 'application/json', origin: 'https://tool.example' },
    })
    expect(response.status).toBe(429)
    expect(response.headers.get('access-control-allow-origin')).toBe('*')
    expect(response.headers.get('access-control-expose-headers')?.toLowerCase()).toContain(
      'retry-after',
    )
  })

  it('does not let a client pick its address with X-Forwarded-For when no proxy is trusted', async () => {
    const answer = await fromAddress('127.0.0.1', { 'x-forwarded-for': '203.0.113.9' })
    expect(answer.status).toBe(429)
  })

  it('counts another address separately', async () => {
    expect((await fromAddress('127.0.0.2')).status).toBe(201)
    expect((await fromAddress('127.0.0.3')).status).toBe(201)
  })

  it('counts refused registrations too, so probing is bounded', async () => {
    const address = '127.0.0.4'
    const bad = JSON.stringify({ redirect_uris: ['http://localhost:1/cb'] })
    for (let i = 0; i < 3; i++) {
      const answer = await rawRequest(`${server.issuer}${REGISTER}`, {
        headers: { 'content-type': 'application/json' },
        body: bad,
        localAddress: address,
      })
      expect(answer.status).toBe(400)
    }
    expect((await fromAddress(address)).status).toBe(429)
  })

  it('opens again when the window has passed, with Retry-After counting down', async () => {
    now += 20_000
    const waiting = await fromAddress('127.0.0.1')
    expect(waiting.status).toBe(429)
    expect(waiting.headers['retry-after']).toBe('10')
    now += 10_000
    expect((await fromAddress('127.0.0.1')).status).toBe(201)
  })
})
