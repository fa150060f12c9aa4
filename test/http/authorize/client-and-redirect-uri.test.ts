import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  Browser,
  createPerson,
  createPkce,
  registerTestClient,
  runAuthorization,
  type TestClient,
  type TestPerson,
} from '../../support/flow.js'
import { formInit } from '../../support/http.js'
import { startTestServer, type TestServer } from '../../support/server.js'
import { codeRow, createIntegrationClient, expectErrorPage, locationOf } from './support.js'

/**
 * Issue 3, "GET /oauth/authorize", order of checks: the client exists, then redirect_uri is
 * given (issue 16) and is one of its registered URIs (any port for http://127.0.0.1, RFC 8252 §7.3). Until both hold
 * the answer is an error page and never a redirect.
 */

let server: TestServer
let client: TestClient
let person: TestPerson

beforeAll(async () => {
  server = await startTestServer()
  client = await registerTestClient(server)
  person = await createPerson(server)
})
afterAll(async () => {
  await server?.close()
})

/** A valid request's parameters; `overrides` replaces or (with undefined) removes them. */
function params(
  forClient: TestClient,
  overrides: Record<string, string | undefined> = {},
): [string, string][] {
  const base: Record<string, string | undefined> = {
    response_type: 'code',
    client_id: forClient.clientId,
    redirect_uri: forClient.redirectUri,
    scope: 'openid profile',
    state: 'st-1',
    code_challenge: createPkce().challenge,
    code_challenge_method: 'S256',
    ...overrides,
  }
  return Object.entries(base).filter((e): e is [string, string] => e[1] !== undefined)
}

function authorize(entries: [string, string][]): Promise<Response> {
  return new Browser(server).request(`/oauth/authorize?${new URLSearchParams(entries)}`)
}

describe('client_id is checked first, and a bad one is an error page', () => {
  it('shows an error page, without a redirect, when client_id is missing', async () => {
    const page = await expectErrorPage(await authorize(params(client, { client_id: undefined })))
    expect(page).toContain('client_id is missing')
  })

  it('shows an error page when client_id is empty', async () => {
    await expectErrorPage(await authorize(params(client, { client_id: '' })))
  })

  it('shows an error page when client_id names no registered client', async () => {
    const page = await expectErrorPage(
      await authorize(params(client, { client_id: 'pci_doesnotexist' })),
    )
    expect(page).toContain('Unknown application')
  })

  it('shows an error page when client_id is given twice, even with the same value', async () => {
    const entries = params(client)
    entries.push(['client_id', client.clientId])
    await expectErrorPage(await authorize(entries))
  })

  it('shows an error page for an unknown client even when every other parameter is wrong', async () => {
    // Checks after the client (response_type, PKCE) must never turn this into a redirect.
    const response = await authorize([
      ['client_id', 'pci_unknown'],
      ['redirect_uri', 'https://attacker.example/steal'],
      ['response_type', 'token'],
    ])
    await expectErrorPage(response)
  })

  it('answers the unknown client with an HTML page, not JSON', async () => {
    const response = await authorize(params(client, { client_id: 'pci_unknown' }))
    expect(response.headers.get('content-type')).toMatch(/^text\/html; charset=utf-8/)
    const page = await response.text()
    expect(page).toMatch(/^<!doctype html>/)
  })
})

describe('redirect_uri must be registered, or the answer is an error page', () => {
  const refused: Array<[string, string]> = [
    ['an unregistered URI', 'https://attacker.example/callback'],
    ['a changed path', 'http://127.0.0.1:49152/other'],
    ['a path with a trailing slash', 'http://127.0.0.1:49152/callback/'],
    ['a path in other case', 'http://127.0.0.1:49152/Callback'],
    ['a longer path', 'http://127.0.0.1:49152/callback/more'],
    ['a dot segment', 'http://127.0.0.1:49152/x/../callback'],
    ['an added query', 'http://127.0.0.1:49152/callback?next=evil'],
    ['an added fragment', 'http://127.0.0.1:49152/callback#frag'],
    ['a changed scheme', 'https://127.0.0.1:49152/callback'],
    ['localhost instead of 127.0.0.1', 'http://localhost:49152/callback'],
    ['[::1] instead of 127.0.0.1', 'http://[::1]:49152/callback'],
    ['another loopback address', 'http://127.0.0.2:49152/callback'],
    ['another host', 'http://evil.example:49152/callback'],
    ['user-info before the host', 'http://127.0.0.1:49152@evil.example/callback'],
    ['no port at all', 'http://127.0.0.1/callback'],
    ['a port beyond 65535', 'http://127.0.0.1:65536/callback'],
    ['a port with a leading zero', 'http://127.0.0.1:049152/callback'],
  ]
  for (const [what, uri] of refused) {
    it(`refuses ${what} with an error page and no redirect`, async () => {
      const page = await expectErrorPage(await authorize(params(client, { redirect_uri: uri })))
      expect(page).toContain('Unregistered redirect URI')
      expect(page).not.toContain('evil.example/callback?')
    })
  }

  it('refuses redirect_uri given twice, even with the registered value both times', async () => {
    const entries = params(client)
    entries.push(['redirect_uri', client.redirectUri])
    const page = await expectErrorPage(await authorize(entries))
    expect(page).toContain('redirect_uri was given more than once')
  })

  it('refuses redirect_uri given twice when the second one is foreign', async () => {
    const entries = params(client)
    entries.push(['redirect_uri', 'https://attacker.example/callback'])
    await expectErrorPage(await authorize(entries))
  })

  it('checks the redirect URI before response_type: a bad one is never redirected to', async () => {
    const response = await authorize(
      params(client, { redirect_uri: 'https://attacker.example/cb', response_type: 'token' }),
    )
    await expectErrorPage(response)
  })

  it('checks the redirect URI before PKCE and scope', async () => {
    const response = await authorize(
      params(client, {
        redirect_uri: 'http://127.0.0.1:49152/elsewhere',
        code_challenge: undefined,
        scope: 'nonsense',
      }),
    )
    await expectErrorPage(response)
  })

  it('does not accept the redirect URI of another registered client', async () => {
    const other = await registerTestClient(server, {
      redirect_uris: ['http://127.0.0.1:40000/theirs'],
    })
    const response = await authorize(params(client, { redirect_uri: other.redirectUri }))
    await expectErrorPage(response)
  })

  // OpenID Connect Core §3.1.2.1: redirect_uri is REQUIRED, even with one registered URI
  // (issue 16); more cases in test/security/strict-protocol-edges.test.ts.
  it('shows an error page, never a redirect, when redirect_uri is omitted or empty', async () => {
    for (const redirectUri of [undefined, '']) {
      const response = await authorize(params(client, { redirect_uri: redirectUri }))
      const page = await expectErrorPage(response)
      expect(page).toContain('redirect_uri is required')
    }
  })

  it('requires redirect_uri when more than one URI is registered', async () => {
    const two = await registerTestClient(server, {
      redirect_uris: ['http://127.0.0.1:40001/a', 'http://127.0.0.1:40001/b'],
    })
    const page = await expectErrorPage(await authorize(params(two, { redirect_uri: undefined })))
    expect(page).toContain('redirect_uri is required')
  })

  it('accepts each of several registered URIs', async () => {
    const two = await registerTestClient(server, {
      redirect_uris: ['http://127.0.0.1:40002/a', 'http://127.0.0.1:40002/b'],
    })
    for (const uri of ['http://127.0.0.1:40002/a', 'http://127.0.0.1:40002/b']) {
      const response = await authorize(params(two, { redirect_uri: uri }))
      expect(response.status).toBe(303)
      expect(locationOf(response)).toMatch(/^\/login\?request=par_/)
    }
  })
})

describe('a loopback redirect URI may change its port (RFC 8252 §7.3)', () => {
  it('accepts another port on a registered http://127.0.0.1 URI and sends the code there', async () => {
    const moved = 'http://127.0.0.1:51234/callback'
    const result = await runAuthorization(server, client, person, {
      extra: { redirect_uri: moved },
    })
    expect(`${result.location.origin}${result.location.pathname}`).toBe(moved)
    expect(result.code).toMatch(/^pac_/)
    expect((await codeRow(server, result.code ?? ''))?.redirect_uri).toBe(moved)
  })

  it('sends errors to the changed port too', async () => {
    const moved = 'http://127.0.0.1:1/callback'
    const response = await authorize(
      params(client, { redirect_uri: moved, response_type: 'token' }),
    )
    expect(response.status).toBe(303)
    expect(locationOf(response)).toMatch(/^http:\/\/127\.0\.0\.1:1\/callback\?error=/)
  })

  it('accepts port 65535, the highest port', async () => {
    const response = await authorize(
      params(client, { redirect_uri: 'http://127.0.0.1:65535/callback' }),
    )
    expect(response.status).toBe(303)
    expect(locationOf(response)).toMatch(/^\/login\?request=/)
  })

  it('still refuses a path change when the port changes', async () => {
    await expectErrorPage(
      await authorize(params(client, { redirect_uri: 'http://127.0.0.1:51234/callbackx' })),
    )
  })
})

describe('integrations: https redirect URIs match exactly, query included', () => {
  let integration: TestClient
  beforeAll(async () => {
    integration = await createIntegrationClient(server, {
      redirectUris: ['https://tool.example.com/cb?tenant=1', 'http://127.0.0.1:8123/native'],
    })
  })

  it('accepts the registered https URI with its query', async () => {
    const response = await authorize(params(integration))
    expect(response.status).toBe(303)
    expect(locationOf(response)).toMatch(/^\/login\?request=/)
  })

  const refused: Array<[string, string]> = [
    ['a changed query value', 'https://tool.example.com/cb?tenant=2'],
    ['an extra query parameter', 'https://tool.example.com/cb?tenant=1&x=1'],
    ['a dropped query', 'https://tool.example.com/cb'],
    ['a changed port on an https URI', 'https://tool.example.com:8443/cb?tenant=1'],
    ['http instead of https', 'http://tool.example.com/cb?tenant=1'],
    ['a changed host', 'https://tool.example.org/cb?tenant=1'],
    ['a subdomain', 'https://evil.tool.example.com/cb?tenant=1'],
  ]
  for (const [what, uri] of refused) {
    it(`refuses ${what} with an error page`, async () => {
      await expectErrorPage(await authorize(params(integration, { redirect_uri: uri })))
    })
  }

  it('keeps the registered query and appends code, state and iss to it', async () => {
    const result = await runAuthorization(server, integration, person, {
      extra: { state: 'q' },
    })
    expect(result.location.searchParams.get('tenant')).toBe('1')
    expect(result.location.searchParams.get('code')).toMatch(/^pac_/)
    expect(result.location.searchParams.get('state')).toBe('q')
    expect(result.location.searchParams.get('iss')).toBe(server.issuer)
  })

  it('allows a port change on an integration loopback URI too', async () => {
    const response = await authorize(
      params(integration, { redirect_uri: 'http://127.0.0.1:9999/native' }),
    )
    expect(response.status).toBe(303)
    expect(locationOf(response)).toMatch(/^\/login\?request=/)
  })
})

describe('POST /oauth/authorize (OIDC Core §3.1.2.1)', () => {
  it('takes the same parameters as a form and applies the same checks', async () => {
    const browser = new Browser(server)
    const ok = await browser.request(
      '/oauth/authorize',
      formInit(Object.fromEntries(params(client))),
    )
    expect(ok.status).toBe(303)
    expect(locationOf(ok)).toMatch(/^\/login\?request=par_/)
    const bad = await browser.request(
      '/oauth/authorize',
      formInit(Object.fromEntries(params(client, { redirect_uri: 'https://attacker.example/' }))),
    )
    await expectErrorPage(bad)
  })

  it('shows an error page for a body that is not a form', async () => {
    const response = await new Browser(server).request('/oauth/authorize', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(Object.fromEntries(params(client))),
    })
    expect(response.status).toBeGreaterThanOrEqual(400)
    expect(response.status).toBeLessThan(500)
    expect(response.headers.get('location')).toBeNull()
    expect(response.headers.get('content-type')).toMatch(/^text\/html/)
  })
})
