import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readJson } from '../../support/http.js'
import { startTestServer, type TestServer } from '../../support/server.js'

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(async () => {
  await server?.close()
})

describe('discovery (RFC 8414, OIDC Discovery, RFC 9728)', () => {
  it('uses the configured issuer byte for byte in every document', async () => {
    const as = await readJson(await server.fetch('/.well-known/oauth-authorization-server'))
    const oidc = await readJson(await server.fetch('/.well-known/openid-configuration'))
    const prm = await readJson(await server.fetch('/.well-known/oauth-protected-resource'))
    expect(as.issuer).toBe(server.issuer)
    expect(oidc.issuer).toBe(server.issuer)
    expect(prm.authorization_servers).toEqual([server.issuer])
  })

  it('never takes the issuer from the Host header', async () => {
    const response = await server.fetch('/.well-known/openid-configuration', {
      headers: { host: 'evil.example' },
    })
    expect((await readJson(response)).issuer).toBe(server.issuer)
  })
})
