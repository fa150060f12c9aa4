import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPerson, registerTestClient, runAuthorization } from '../../support/flow.js'
import { startTestServer, type TestServer } from '../../support/server.js'

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(async () => {
  await server?.close()
})

describe('authorization code flow through sign-in and consent', () => {
  it('redirects to the registered callback with code, state and iss (RFC 9207)', async () => {
    const client = await registerTestClient(server)
    const person = await createPerson(server)
    const result = await runAuthorization(server, client, person, { extra: { state: 'xyz' } })
    expect(result.location.origin + result.location.pathname).toBe(client.redirectUri)
    expect(result.code).toMatch(/^pac_[A-Za-z0-9_-]{43}$/)
    expect(result.location.searchParams.get('state')).toBe('xyz')
    expect(result.location.searchParams.get('iss')).toBe(server.issuer)
  })

  it('answers access_denied with state and iss when the person denies', async () => {
    const client = await registerTestClient(server)
    const person = await createPerson(server)
    const result = await runAuthorization(server, client, person, {
      decision: 'deny',
      extra: { state: 's1' },
    })
    expect(result.code).toBeUndefined()
    expect(result.location.searchParams.get('error')).toBe('access_denied')
    expect(result.location.searchParams.get('state')).toBe('s1')
    expect(result.location.searchParams.get('iss')).toBe(server.issuer)
  })
})
