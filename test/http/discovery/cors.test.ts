import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from '../../support/server.js'

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(async () => {
  await server?.close()
})

const origin = 'https://any-origin.example'
const OPEN = [
  '/.well-known/oauth-authorization-server',
  '/.well-known/openid-configuration',
  '/.well-known/oauth-protected-resource',
  '/.well-known/jwks.json',
  '/openapi.json',
]

describe('CORS is open on the discovery documents and the JWKS', () => {
  it.each(OPEN)('GET %s from any origin is readable', async (path) => {
    const response = await server.fetch(path, { headers: { origin } })
    expect(response.status).toBe(200)
    expect(response.headers.get('access-control-allow-origin')).toBe('*')
    expect(response.headers.get('access-control-allow-credentials')).toBeNull()
  })

  it.each(OPEN)('a preflight for GET %s is answered', async (path) => {
    const response = await server.fetch(path, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'GET' },
    })
    expect(response.status).toBeLessThan(300)
    expect(response.headers.get('access-control-allow-origin')).toBe('*')
    expect(response.headers.get('access-control-allow-methods')).toMatch(/\bGET\b/)
  })
})
