import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { countClients, register } from '../../support/registration.js'
import { startTestServer, type TestServer } from '../../support/server.js'

let server: TestServer
let relaxed: TestServer
beforeAll(async () => {
  ;[server, relaxed] = await Promise.all([
    startTestServer(),
    startTestServer({ env: { PORTICO_ALLOW_LOOPBACK_HOSTNAMES: 'true' } }),
  ])
})
afterAll(async () => {
  await Promise.all([server?.close(), relaxed?.close()])
})

const ACCEPTED = [
  'http://127.0.0.1:1/cb',
  'http://127.0.0.1:80/cb',
  'http://127.0.0.1:8080/callback',
  'http://127.0.0.1:49152/cb',
  'http://127.0.0.1:65535/cb',
  'http://127.0.0.1:8080/',
  'http://127.0.0.1:8080/oauth/callback/done',
  'http://127.0.0.1:8080/cb/',
  'http://127.0.0.1:8080/Mixed/Case',
  "http://127.0.0.1:8080/a-b_c.d~e!$&'()+,=:@",
  'http://127.0.0.1:8080/%41%7e%20',
  'http://127.0.0.1:8080/.well/known',
]

describe('registration accepts every loopback callback of the form http://127.0.0.1:<port>/<path>', () => {
  it.each(ACCEPTED)('accepts %s and stores it exactly as sent', async (uri) => {
    const before = await countClients(server)
    const answer = await register(server, { redirect_uris: [uri] })
    expect(answer.status).toBe(201)
    expect(answer.body.redirect_uris).toEqual([uri])
    expect(await countClients(server)).toBe(before + 1)
    const row = await server.deps.database.db
      .selectFrom('clients')
      .select('redirect_uris')
      .where('client_id', '=', answer.body.client_id)
      .executeTakeFirstOrThrow()
    expect(JSON.parse(row.redirect_uris)).toEqual([uri])
  })

  it('accepts several URIs in one registration, keeping their order', async () => {
    const uris = ['http://127.0.0.1:9000/b', 'http://127.0.0.1:9000/a', 'http://127.0.0.1:1/']
    const answer = await register(server, { redirect_uris: uris })
    expect(answer.status).toBe(201)
    expect(answer.body.redirect_uris).toEqual(uris)
  })

  it('accepts up to ten URIs and refuses more, or duplicates', async () => {
    const ten = Array.from({ length: 10 }, (_, i) => `http://127.0.0.1:${8000 + i}/cb`)
    expect((await register(server, { redirect_uris: ten })).status).toBe(201)
    const eleven = [...ten, 'http://127.0.0.1:9999/cb']
    const tooMany = await register(server, { redirect_uris: eleven })
    expect(tooMany.status).toBe(400)
    expect(tooMany.body.error).toBe('invalid_client_metadata')
    const twice = await register(server, { redirect_uris: [ten[0], ten[0]] })
    expect(twice.status).toBe(400)
    expect(twice.body.error).toBe('invalid_client_metadata')
  })

  it('refuses localhost and [::1] by default, as the specification says', async () => {
    for (const uri of ['http://localhost:8080/cb', 'http://[::1]:8080/cb']) {
      const answer = await register(server, { redirect_uris: [uri] })
      expect(answer.status).toBe(400)
      expect(answer.body.error).toBe('invalid_redirect_uri')
    }
  })

  it.each([
    'http://localhost:8080/cb',
    'http://localhost:1/',
    'http://[::1]:8080/cb',
    'http://[::1]:65535/a/b',
    'http://127.0.0.1:8080/cb',
  ])('accepts %s when PORTICO_ALLOW_LOOPBACK_HOSTNAMES=true (RFC 8252 §7.3)', async (uri) => {
    const answer = await register(relaxed, { redirect_uris: [uri] })
    expect(answer.status).toBe(201)
    expect(answer.body.redirect_uris).toEqual([uri])
  })
})
