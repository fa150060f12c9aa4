import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from '../../support/server.js'

/** Behind one load balancer that appends the client's address to X-Forwarded-For. */
let server: TestServer
beforeAll(async () => {
  server = await startTestServer({
    env: { PORTICO_TRUST_PROXY: '1', PORTICO_ANONYMOUS_API_RATE_LIMIT: '2' },
  })
})
afterAll(async () => {
  await server?.close()
})

async function statusFor(forwardedFor: string): Promise<number> {
  const response = await server.fetch('/api/v1', { headers: { 'x-forwarded-for': forwardedFor } })
  await response.arrayBuffer()
  return response.status
}

describe('PORTICO_TRUST_PROXY=1: client addresses from the nearest proxy', () => {
  it('counts each client address the proxy reports on its own', async () => {
    expect(await statusFor('203.0.113.1')).toBe(200)
    expect(await statusFor('203.0.113.1')).toBe(200)
    expect(await statusFor('203.0.113.1')).toBe(429)
    expect(await statusFor('203.0.113.2')).toBe(200)
  })

  it('ignores addresses a client puts in front of the one its proxy appended', async () => {
    expect(await statusFor('198.51.100.7, 203.0.113.1')).toBe(429)
    expect(await statusFor('198.51.100.8, 203.0.113.1')).toBe(429)
  })
})
