import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type DocumentServer,
  makeCertificate,
  startDocumentServer,
} from '../../support/document-server.js'
import {
  authorizePath,
  Browser,
  createPerson,
  createPkce,
  formField,
  runAuthorization,
  type TestPerson,
} from '../../support/flow.js'
import { readJson } from '../../support/http.js'
import { startTestServer, type TestServer } from '../../support/server.js'
import { expectErrorPage, locationOf, openConsent } from '../authorize/support.js'

let server: TestServer
let documents: DocumentServer
let person: TestPerson

beforeAll(async () => {
  documents = await startDocumentServer(await makeCertificate())
  server = await startTestServer({
    outbound: { ca: documents.ca, timeoutMs: 1500 },
    env: { PORTICO_CLIENT_DOCUMENT_HOST_FETCH_RATE_LIMIT: '10000' },
  })
  person = await createPerson(server)
})
afterAll(async () => {
  await server?.close()
  await documents?.close()
})

function token(fields: Record<string, string>): Promise<Response> {
  return server.fetch('/api/oauth/token', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  })
}

const WARNING = /<p class="warning" role="note">[\s\S]*?<\/p>/

describe('operator trust (portico integrations trust)', () => {
  it('warns on the sign-in page too, with the consent page’s very words, until the URL is trusted', async () => {
    const path = '/sign-in-warning/client.json'
    const url = documents.url(path)
    const client = { clientId: url, redirectUri: 'http://127.0.0.1:8765/callback' }
    documents.json(path, {
      client_id: url,
      client_name: 'Agent',
      redirect_uris: [client.redirectUri],
    })
    const signInPage = async () => {
      const browser = new Browser(server)
      const started = await browser.request(authorizePath(client, createPkce()))
      expect(locationOf(started)).toMatch(/^\/login\?request=/)
      return (await browser.request(locationOf(started))).text()
    }
    const warning = WARNING.exec(await signInPage())?.[0]
    expect(warning).toContain('Unverified tool')
    const consent = await openConsent(new Browser(server), client, person)
    expect(WARNING.exec(consent.page)?.[0]).toBe(warning)

    expect(await server.deps.trustedClientDocuments.trust(url, Date.now())).toBe(true)
    expect(await signInPage()).not.toContain('Unverified tool')
  })

  it('makes a document’s https callbacks valid and drops the not-reviewed warning', async () => {
    const path = '/trusted/client.json'
    const url = documents.url(path)
    const callback = 'https://agent.example/oauth/callback'
    documents.json(path, {
      client_id: url,
      client_name: 'Reviewed agent',
      redirect_uris: [callback, 'http://127.0.0.1/cb'],
    })
    const start = () =>
      new Browser(server).request(
        authorizePath({ clientId: url, redirectUri: callback }, createPkce()),
      )
    await expectErrorPage(await start())

    expect(await server.deps.trustedClientDocuments.trust(url, Date.now())).toBe(true)
    const form = await openConsent(
      new Browser(server),
      { clientId: url, redirectUri: callback },
      person,
    )
    expect(form.page).not.toContain('Unverified tool')
    expect(form.page).toContain('reviewed by')
    expect(form.page).toContain('agent.example')

    expect(await server.deps.trustedClientDocuments.untrust(url)).toBe(true)
    await expectErrorPage(await start())
    // Untrusted, the document as a whole is refused again, its loopback callback included.
    const loopback = await new Browser(server).request(
      authorizePath({ clientId: url, redirectUri: 'http://127.0.0.1:40000/cb' }, createPkce()),
    )
    await expectErrorPage(loopback)
  })
})

describe('grants per installation', () => {
  it('lists each authorization of one document URL apart, and revoking one leaves the other', async () => {
    const path = '/shared/client.json'
    const url = documents.url(path)
    documents.json(path, {
      client_id: url,
      client_name: 'Shared agent',
      redirect_uris: ['http://127.0.0.1/callback'],
    })
    const laptop = 'http://127.0.0.1:41001/callback'
    const desktop = 'http://127.0.0.1:41002/callback'
    const tokens: Record<string, string> = {}
    for (const redirectUri of [laptop, desktop]) {
      const flow = await runAuthorization(server, { clientId: url, redirectUri }, person)
      const response = await token({
        grant_type: 'authorization_code',
        code: flow.code ?? '',
        client_id: url,
        redirect_uri: redirectUri,
        code_verifier: flow.pkce.verifier,
      })
      tokens[redirectUri] = String((await readJson(response)).access_token)
    }

    const browser = new Browser(server)
    const login = await (await browser.request('/login')).text()
    await browser.post('/login', {
      csrf: formField(login, 'csrf') ?? '',
      email: person.email,
      password: person.password,
    })
    // Only the person's own table (an owner's page lists everyone's below it).
    const page =
      (await (await browser.request('/account')).text()).split('All connected apps')[0] ?? ''
    const rows = [...page.matchAll(/<tr>\s*<td>([\s\S]*?)<\/tr>/g)].map((m) => m[1] ?? '')
    const shared = rows.filter((row) => row.includes('Shared agent'))
    expect(shared).toHaveLength(2)
    for (const row of shared) expect(row).toContain(`127.0.0.1:${documents.port}`)
    const laptopRow = shared.find((row) => row.includes('127.0.0.1:41001'))
    expect(shared.some((row) => row.includes('127.0.0.1:41002'))).toBe(true)
    const field = (name: string) =>
      new RegExp(`name="${name}" value="([^"]*)"`).exec(laptopRow ?? '')?.[1] ?? ''

    const revoked = await browser.post('/account/connections/revoke', {
      csrf: field('csrf'),
      client_id: field('client_id'),
      user_id: field('user_id'),
      grant_id: field('grant_id'),
    })
    expect(revoked.status).toBe(303)
    const call = (accessToken: string | undefined) =>
      server.fetch('/api/v1', { headers: { authorization: `Bearer ${accessToken}` } })
    expect((await call(tokens[laptop])).status).toBe(401)
    expect((await call(tokens[desktop])).status).toBe(200)
  })
})
