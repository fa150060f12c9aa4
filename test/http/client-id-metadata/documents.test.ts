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
  runAuthorization,
  type TestPerson,
} from '../../support/flow.js'
import { readJson } from '../../support/http.js'
import { startTestServer, type TestServer } from '../../support/server.js'
import { expectErrorPage, openConsent } from '../authorize/support.js'

/**
 * Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document) served by a
 * local HTTPS server whose certificate the test made and handed to Portico as its CA.
 */

let server: TestServer
let documents: DocumentServer
let person: TestPerson
let counter = 0

beforeAll(async () => {
  const certificate = await makeCertificate()
  documents = await startDocumentServer(certificate)
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

const CALLBACK = 'http://127.0.0.1:8765/callback'

/** A fresh document path on the test's HTTPS server, and its URL (the client_id). */
function newDocument(): { path: string; url: string } {
  counter += 1
  const path = `/clients/${counter}/client.json`
  return { path, url: documents.url(path) }
}

function validDocument(url: string, extra: Record<string, unknown> = {}) {
  return {
    client_id: url,
    client_name: 'Agent Smith',
    redirect_uris: [CALLBACK],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    ...extra,
  }
}

function token(fields: Record<string, string>): Promise<Response> {
  return server.fetch('/api/oauth/token', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  })
}

function refusalsLogged(clientId: string): unknown[] {
  return server.logs
    .filter((line) => line.event === 'client_document_refused' && line.client_id === clientId)
    .map((line) => line.reason)
}

describe('discovery', () => {
  it('advertises client_id_metadata_document_supported in both documents, keeping none', async () => {
    for (const path of [
      '/.well-known/oauth-authorization-server',
      '/.well-known/openid-configuration',
    ]) {
      const metadata = await readJson(await server.fetch(path))
      expect(metadata.client_id_metadata_document_supported).toBe(true)
      expect(metadata.token_endpoint_auth_methods_supported).toContain('none')
    }
  })
})

describe('a valid document', () => {
  it('completes authorization, code exchange and refresh with the URL as client_id', async () => {
    const { path, url } = newDocument()
    documents.json(path, validDocument(url))
    const flow = await runAuthorization(server, { clientId: url, redirectUri: CALLBACK }, person)
    expect(flow.location.origin + flow.location.pathname).toBe(CALLBACK)
    expect(flow.code).toBeDefined()
    const exchanged = await token({
      grant_type: 'authorization_code',
      code: flow.code ?? '',
      client_id: url,
      redirect_uri: CALLBACK,
      code_verifier: flow.pkce.verifier,
    })
    expect(exchanged.status).toBe(200)
    const tokens = await readJson(exchanged)
    const api = await server.fetch('/api/v1', {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    })
    expect(api.status).toBe(200)
    const refreshed = await token({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: url,
    })
    expect(refreshed.status).toBe(200)
    // Cache-Control absent: kept five minutes, so one fetch served all of it.
    expect(documents.hits(path)).toBe(1)
  })

  it('shows the document host, the return host and port, and the not-reviewed warning', async () => {
    const { path, url } = newDocument()
    documents.json(path, validDocument(url))
    const form = await openConsent(
      new Browser(server),
      { clientId: url, redirectUri: CALLBACK },
      person,
    )
    expect(form.page).toContain('Agent Smith')
    expect(form.page).toContain(`<strong>127.0.0.1:${documents.port}</strong>`)
    expect(form.page).toContain('127.0.0.1:8765')
    expect(form.page).toContain('Unverified tool')
    expect(form.page).toContain('described by a public document')
  })

  it('leaves a row the sweeper deletes once unused, unless an authorization is under way; a deleted row is written again at the next use', async () => {
    const DAY_MS = 86_400_000
    const unused = newDocument()
    const used = newDocument()
    documents.json(unused.path, validDocument(unused.url))
    documents.json(used.path, validDocument(used.url))
    const exists = async (url: string) =>
      (await server.deps.database.db
        .selectFrom('clients')
        .select('client_id')
        .where('client_id', '=', url)
        .executeTakeFirst()) !== undefined
    const flow = await runAuthorization(
      server,
      { clientId: used.url, redirectUri: CALLBACK },
      person,
    )
    expect(flow.code).toBeDefined()
    // Not signed in: the request is stored, pending, for 10 minutes.
    const pending = await new Browser(server).request(
      authorizePath({ clientId: unused.url, redirectUri: CALLBACK }, createPkce()),
    )
    expect(pending.status).toBe(303)
    const later = Date.now() + DAY_MS
    await server.deps.clients.sweepUnused(later, Date.now())
    expect(await exists(unused.url)).toBe(true)
    await server.deps.clients.sweepUnused(later, later)
    expect(await exists(unused.url)).toBe(false)
    expect(await exists(used.url)).toBe(true)
    // The next use writes the copy again: a working authorization, never a 500.
    const again = await runAuthorization(
      server,
      { clientId: unused.url, redirectUri: CALLBACK },
      person,
    )
    expect(again.code).toBeDefined()
    expect(await exists(unused.url)).toBe(true)
  })

  it('ignores grant types Portico does not offer and fields it does not know', async () => {
    const { path, url } = newDocument()
    documents.json(
      path,
      validDocument(url, {
        grant_types: [
          'authorization_code',
          'urn:ietf:params:oauth:grant-type:device_code',
          'refresh_token',
        ],
        software_id: 'agent',
        logo_uri: 'https://example.com/logo.png',
        contacts: ['ops@example.com'],
      }),
    )
    const flow = await runAuthorization(server, { clientId: url, redirectUri: CALLBACK }, person)
    expect(flow.code).toBeDefined()
  })
})

describe('RFC 8252 section 7.3: a port-less loopback redirect URI in a document', () => {
  it('matches that host and path on any port; the token request repeats the exact URI', async () => {
    const { path, url } = newDocument()
    documents.json(path, validDocument(url, { redirect_uris: ['http://127.0.0.1/callback'] }))
    const used = 'http://127.0.0.1:49152/callback'
    const flow = await runAuthorization(server, { clientId: url, redirectUri: used }, person)
    expect(flow.location.origin + flow.location.pathname).toBe(used)
    const base = {
      grant_type: 'authorization_code',
      code: flow.code ?? '',
      client_id: url,
      code_verifier: flow.pkce.verifier,
    }
    const portless = await token({ ...base, redirect_uri: 'http://127.0.0.1/callback' })
    expect((await readJson(portless)).error).toBe('invalid_grant')
    // The code was spent by the refused attempt: a new authorization, redeemed exactly.
    const again = await runAuthorization(server, { clientId: url, redirectUri: used }, person)
    const exact = await token({
      ...base,
      code: again.code ?? '',
      code_verifier: again.pkce.verifier,
      redirect_uri: used,
    })
    expect(exact.status).toBe(200)
  })

  it('still compares host and path exactly', async () => {
    const { path, url } = newDocument()
    documents.json(path, validDocument(url, { redirect_uris: ['http://127.0.0.1/callback'] }))
    for (const other of [
      'http://127.0.0.1:49152/callback/other',
      'http://localhost:49152/callback',
      'http://127.0.0.2:49152/callback',
      'http://127.0.0.1:49152/Callback',
    ]) {
      const response = await new Browser(server).request(
        authorizePath({ clientId: url, redirectUri: other }, createPkce()),
      )
      await expectErrorPage(response)
    }
  })

  it('requires redirect_uri at authorization for a document client', async () => {
    const { path, url } = newDocument()
    documents.json(path, validDocument(url, { redirect_uris: ['http://127.0.0.1/callback'] }))
    const response = await new Browser(server).request(
      authorizePath({ clientId: url, redirectUri: '' }, createPkce()),
    )
    await expectErrorPage(response)
  })
})

/** Each case serves something at a fresh URL; Portico must refuse it with a page and log why. */
const REFUSED: ReadonlyArray<{
  name: string
  serve: (path: string, url: string) => void
  reason: RegExp
}> = [
  {
    name: 'a document whose client_id differs from its URL',
    serve: (path, url) => documents.json(path, validDocument(`${url}x`)),
    reason: /client_id in the document differs/,
  },
  {
    name: 'a redirect (3xx), which is not followed',
    serve: (path, url) => {
      documents.json(`${path}.target`, validDocument(url))
      documents.route(path, (_request, response) => {
        response.writeHead(302, { location: `${path}.target` }).end()
      })
    },
    reason: /http_status_302/,
  },
  {
    name: 'a 404',
    serve: () => {},
    reason: /http_status_404/,
  },
  {
    name: 'a 500',
    serve: (path) =>
      documents.route(path, (_request, response) => {
        response.writeHead(500, { 'content-type': 'application/json' }).end('{}')
      }),
    reason: /http_status_500/,
  },
  {
    name: 'a 6 KiB document (more than 5 KiB)',
    serve: (path, url) =>
      documents.json(path, validDocument(url, { padding: 'x'.repeat(6 * 1024) })),
    reason: /too_large/,
  },
  {
    name: 'a 6 KiB document sent without a length (chunked), read no further than 5 KiB',
    serve: (path, url) =>
      documents.route(path, (_request, response) => {
        response.writeHead(200, { 'content-type': 'application/json' })
        const body = JSON.stringify(validDocument(url, { padding: 'x'.repeat(6 * 1024) }))
        response.write(body.slice(0, 3000))
        response.write(body.slice(3000))
        response.end()
      }),
    reason: /too_large/,
  },
  {
    name: 'a slow trickle that never finishes within the time limit',
    serve: (path) =>
      documents.route(path, (_request, response) => {
        response.writeHead(200, { 'content-type': 'application/json' })
        response.write('{"client_id":')
        const timer = setInterval(() => response.write(' '), 100)
        response.on('close', () => clearInterval(timer))
      }),
    reason: /timeout/,
  },
  {
    name: 'invalid JSON',
    serve: (path, url) => documents.json(path, `{"client_id":"${url}",`),
    reason: /not valid JSON/,
  },
  {
    name: 'a wrong content type',
    serve: (path, url) =>
      documents.json(path, validDocument(url), { 'content-type': 'text/html; charset=utf-8' }),
    reason: /not_json_content_type/,
  },
  {
    name: 'a secret-based token_endpoint_auth_method',
    serve: (path, url) =>
      documents.json(
        path,
        validDocument(url, { token_endpoint_auth_method: 'client_secret_basic' }),
      ),
    reason: /token_endpoint_auth_method/,
  },
  {
    name: 'a client_secret',
    serve: (path, url) => documents.json(path, validDocument(url, { client_secret: 'hunter2' })),
    reason: /client secret/,
  },
  {
    name: 'private key material',
    serve: (path, url) =>
      documents.json(
        path,
        validDocument(url, {
          jwks: { keys: [{ kty: 'EC', crv: 'P-256', x: 'a', y: 'b', d: 'c' }] },
        }),
      ),
    reason: /private key/,
  },
  {
    name: 'a client_name hiding a zero-width or bidirectional character',
    serve: (path, url) =>
      documents.json(path, validDocument(url, { client_name: 'Agent\u200bSmith\u202e' })),
    reason: /client_name/,
  },
  {
    name: 'no redirect_uris',
    serve: (path, url) => documents.json(path, validDocument(url, { redirect_uris: undefined })),
    reason: /redirect_uris/,
  },
  {
    name: 'an https redirect URI in a document nobody trusts',
    serve: (path, url) =>
      documents.json(path, validDocument(url, { redirect_uris: ['https://agent.example/cb'] })),
    reason: /trust/,
  },
  {
    name: 'a redirect URI that is neither loopback nor https',
    serve: (path, url) =>
      documents.json(path, validDocument(url, { redirect_uris: ['http://agent.example/cb'] })),
    reason: /neither a loopback/,
  },
]

describe('documents that are refused: an error page with invalid_client, never a redirect', () => {
  for (const refusal of REFUSED) {
    it(`refuses ${refusal.name}`, async () => {
      const { path, url } = newDocument()
      refusal.serve(path, url)
      const response = await new Browser(server).request(
        authorizePath({ clientId: url, redirectUri: CALLBACK }, createPkce()),
      )
      const page = await expectErrorPage(response)
      expect(page).toContain('invalid_client')
      expect(refusalsLogged(url).join(' ')).toMatch(refusal.reason)
      if (path.endsWith('.json')) expect(documents.hits(`${path}.target`)).toBe(0)
    })
  }

  it('answers invalid_client at the token endpoint too, with the reason in the log', async () => {
    const { path, url } = newDocument()
    documents.json(path, validDocument(`${url}#other`))
    const response = await token({
      grant_type: 'authorization_code',
      code: 'pac_x',
      client_id: url,
      redirect_uri: CALLBACK,
      code_verifier: 'v'.repeat(43),
    })
    expect(response.status).toBe(401)
    expect((await readJson(response)).error).toBe('invalid_client')
    expect(refusalsLogged(url).join(' ')).toMatch(/client_id in the document differs/)
  })

  it('does not fetch a failed URL again at once (short pause), and never caches it as a document', async () => {
    const { path, url } = newDocument()
    const open = () =>
      new Browser(server).request(
        authorizePath({ clientId: url, redirectUri: CALLBACK }, createPkce()),
      )
    await expectErrorPage(await open())
    await expectErrorPage(await open())
    expect(documents.hits(path)).toBe(1)
  })
})

describe('client_id URLs judged as sent', () => {
  for (const clientId of [
    'https://127.0.0.1/',
    'https://127.0.0.1',
    'https://user@127.0.0.1/client.json',
    'https://127.0.0.1/a/../client.json',
    'https://127.0.0.1/a/%2e%2E/client.json',
    'https://127.0.0.1/./client.json',
    'https://127.0.0.1/client.json#x',
    'https://127.0.0.1:443/client.json',
    'HTTPS://127.0.0.1/client.json',
    'https://127.0.0.1\\client.json',
  ]) {
    it(`refuses ${JSON.stringify(clientId)} without fetching anything`, async () => {
      const response = await new Browser(server).request(
        authorizePath({ clientId, redirectUri: CALLBACK }, createPkce()),
      )
      await expectErrorPage(response)
    })
  }
})
