import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Browser, createPerson, createPkce, type TestClient } from '../support/flow.js'
import {
  codeFields,
  mintCode,
  postToken,
  refreshFields,
  registerTestClient,
} from '../support/grants.js'
import { formInit, readJson } from '../support/http.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { expectHtmlPage, expectOAuthError, NQSCHAR, snapshot } from './support.js'

/**
 * Oversize parameters, response_mode values Portico does not serve, and parameter
 * pollution (RFC 6749 §3.1: parameters sent at most once; §2.3.1: credentials never in the
 * query string) at the authorization and token endpoints.
 */

let server: TestServer
let client: TestClient
let confidential: TestClient

beforeAll(async () => {
  server = await startTestServer()
  client = await registerTestClient(server)
  confidential = await registerTestClient(server, {
    token_endpoint_auth_method: 'client_secret_post',
  })
})
afterAll(async () => {
  await server?.close()
})

const STATE = 'st-oversize'

function authorizeParams(overrides: Record<string, string> = {}): URLSearchParams {
  return new URLSearchParams({
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: client.redirectUri,
    scope: 'openid',
    state: STATE,
    code_challenge: createPkce().challenge,
    code_challenge_method: 'S256',
    ...overrides,
  })
}

function authorize(search: URLSearchParams | string): Promise<Response> {
  return server.fetch(`/oauth/authorize?${search}`, { redirect: 'manual' })
}

/** RFC 6749 §4.1.2.1: an error redirect to the registered URI, with state and iss. */
function expectErrorRedirect(response: Response, error: string): URL {
  expect(response.status).toBe(303)
  const location = new URL(response.headers.get('location') ?? '')
  expect(`${location.origin}${location.pathname}`).toBe(client.redirectUri)
  expect(location.searchParams.getAll('error')).toEqual([error])
  expect(location.searchParams.getAll('state')).toEqual([STATE])
  expect(location.searchParams.getAll('iss')).toEqual([server.issuer])
  expect(location.searchParams.get('code')).toBeNull()
  expect(location.searchParams.get('error_description') ?? '').toMatch(NQSCHAR)
  return location
}

const BIG = 'A'.repeat(8000)

describe('oversize parameters at GET /oauth/authorize', () => {
  it('an 8000-character client_id is an unknown application: a page, no redirect', async () => {
    await expectHtmlPage(await authorize(authorizeParams({ client_id: BIG })), 400)
  })

  it('an 8000-character redirect_uri is unregistered: a page, no redirect', async () => {
    const uri = `${client.redirectUri}${'/a'.repeat(4000)}`
    await expectHtmlPage(await authorize(authorizeParams({ redirect_uri: uri })), 400)
  })

  const redirected: ReadonlyArray<readonly [string, string, string]> = [
    ['scope', `openid ${'x'.repeat(8000)}`, 'invalid_scope'],
    ['code_challenge', BIG, 'invalid_request'],
    ['resource', `https://api.example/${BIG}`, 'invalid_target'],
    ['max_age', '9'.repeat(8000), 'invalid_request'],
    ['prompt', `login ${'consent '.repeat(1000)}x`, 'invalid_request'],
    ['response_type', BIG, 'unsupported_response_type'],
    ['code_challenge_method', BIG, 'invalid_request'],
  ]
  for (const [name, value, error] of redirected) {
    it(`an 8000-character ${name} is ${error}, and the redirect does not carry it back`, async () => {
      const before = await snapshot(server)
      const response = await authorize(authorizeParams({ [name]: value }))
      const location = expectErrorRedirect(response, error)
      expect(location.href.length).toBeLessThan(1500)
      expect(await snapshot(server)).toEqual(before)
    })
  }

  it('an 8000-character login_hint is ignored, never shown on the sign-in page', async () => {
    const browser = new Browser(server)
    const response = await browser.request(
      `/oauth/authorize?${authorizeParams({ login_hint: `${BIG}@example.com` })}`,
    )
    expect(response.status).toBe(303)
    const page = await (await browser.request(response.headers.get('location') ?? '')).text()
    expect(page).not.toContain(BIG.slice(0, 400))
  })

  it('a query string beyond the header limit is refused before Portico reads it (431, no redirect)', async () => {
    const response = await authorize(authorizeParams({ state: 'x'.repeat(40_000) }))
    expect(response.status).toBe(431)
    expect(response.headers.get('location')).toBeNull()
  })

  it('a thousand unknown parameters are ignored, not a failure', async () => {
    const search = authorizeParams()
    for (let i = 0; i < 1000; i++) search.append(`junk${i}`, String(i))
    const response = await authorize(search)
    expect(response.status).toBe(303)
    expect(response.headers.get('location')).toMatch(/^\/login\?request=/)
  })

  it('a form POST over 64 KiB is 413 as an HTML page, not a redirect', async () => {
    const response = await server.fetch('/oauth/authorize', {
      ...formInit({ ...Object.fromEntries(authorizeParams()), padding: 'x'.repeat(70_000) }),
      redirect: 'manual',
    })
    await expectHtmlPage(response, 413)
  })
})

describe('response_mode (OAuth 2.0 Multiple Response Types §2.1): only query is served', () => {
  for (const mode of [
    'fragment',
    'form_post',
    'query.jwt',
    'fragment.jwt',
    'form_post.jwt',
    'jwt',
    'web_message',
    'QUERY',
    'query ',
    'query,fragment',
  ]) {
    it(`answers response_mode=${JSON.stringify(mode)} with invalid_request in the query, with state and iss`, async () => {
      const location = expectErrorRedirect(
        await authorize(authorizeParams({ response_mode: mode })),
        'invalid_request',
      )
      expect(location.hash).toBe('')
    })
  }

  it('treats an empty response_mode as absent (RFC 6749 §3.1)', async () => {
    const response = await authorize(authorizeParams({ response_mode: '' }))
    expect(response.headers.get('location')).toMatch(/^\/login\?request=/)
  })
})

describe('parameter pollution at the authorization endpoint', () => {
  it('refuses response_mode given twice (RFC 6749 §3.1)', async () => {
    const search = authorizeParams({ response_mode: 'query' })
    search.append('response_mode', 'fragment')
    expectErrorRedirect(await authorize(search), 'invalid_request')
  })

  it('refuses an unknown parameter given twice too: no parser gets to pick a value', async () => {
    const search = authorizeParams()
    search.append('foo', '1')
    search.append('foo', '2')
    expectErrorRedirect(await authorize(search), 'invalid_request')
  })

  it('does not read redirect_uri from differently spelled names (case, brackets, dots)', async () => {
    for (const name of [
      'Redirect_URI',
      'REDIRECT_URI',
      'redirect_uri[]',
      'redirect_uri[0]',
      'redirect.uri',
    ]) {
      const search = authorizeParams()
      search.append(name, 'https://evil.example/cb')
      const response = await authorize(search)
      const location = response.headers.get('location') ?? ''
      expect(location, name).not.toContain('evil.example')
      expect(response.status, name).toBe(303)
    }
  })

  it('does not take a semicolon as a separator: client_id=x;redirect_uri=… is one value', async () => {
    const response = await authorize(
      `response_type=code&client_id=${client.clientId};redirect_uri=https://evil.example/cb&scope=openid`,
    )
    await expectHtmlPage(response, 400)
  })

  it('keeps state one parameter: an encoded & in state cannot add code, error or iss to the redirect', async () => {
    const state = `x&code=pac_attacker&error=none&iss=https://evil.example&state=y`
    const response = await authorize(authorizeParams({ state, response_type: 'token' }))
    expect(response.status).toBe(303)
    const location = new URL(response.headers.get('location') ?? '')
    expect(location.searchParams.getAll('state')).toEqual([state])
    expect(location.searchParams.getAll('iss')).toEqual([server.issuer])
    expect(location.searchParams.getAll('error')).toEqual(['unsupported_response_type'])
    expect(location.searchParams.getAll('code')).toEqual([])
  })

  it('ignores an iss sent by the client: the redirect carries Portico’s own (RFC 9207 §2)', async () => {
    const search = authorizeParams({ iss: 'https://evil.example', response_type: 'token' })
    const response = await authorize(search)
    const location = new URL(response.headers.get('location') ?? '')
    expect(location.searchParams.getAll('iss')).toEqual([server.issuer])
  })
})

describe('oversize parameters at the token endpoint', () => {
  const HUGE = 'A'.repeat(60_000)
  for (const name of [
    'grant_type',
    'code',
    'code_verifier',
    'redirect_uri',
    'client_id',
    'client_secret',
    'scope',
    'resource',
    'refresh_token',
  ]) {
    it(`a 60 000-character ${name} is a 4xx OAuth error that does not echo it, changing nothing`, async () => {
      const { user } = await createPerson(server)
      const minted = await mintCode(server, confidential, user)
      let fields = codeFields(minted, { [name]: HUGE })
      if (name === 'refresh_token' || name === 'scope') {
        // The code grant ignores scope; a refresh with a real refresh token reads it.
        const issued = await readJson(await postToken(server, codeFields(minted)))
        fields = refreshFields(confidential, String(issued.refresh_token), { [name]: HUGE })
      }
      const before = await snapshot(server)
      const response = await postToken(server, fields)
      const text = await response.clone().text()
      await expectOAuthError(response)
      expect(text.length).toBeLessThan(600)
      expect(text).not.toContain('AAAAAAAAAAAAAAAA')
      // A refused code exchange may spend the code (it is consumed first), nothing else.
      const after = await snapshot(server)
      expect(after.grants).toEqual(before.grants)
      expect(after.access_tokens).toEqual(before.access_tokens)
      expect(after.refresh_tokens).toEqual(before.refresh_tokens)
      expect(after.clients).toEqual(before.clients)
    })
  }

  it('a body over 64 KiB is 413 in OAuth JSON', async () => {
    const response = await postToken(server, {
      grant_type: 'authorization_code',
      client_id: client.clientId,
      code: 'A'.repeat(70_000),
    })
    const body = await expectOAuthError(response, 413)
    expect(body.error).toBe('invalid_request')
  })
})

describe('RFC 6749 §2.3.1: client credentials are never read from the query string', () => {
  it('refuses a confidential client whose secret is only in the query string (401 invalid_client)', async () => {
    const { user } = await createPerson(server)
    const minted = await mintCode(server, confidential, user)
    const fields = codeFields(minted)
    const secret = String(fields.client_secret)
    delete fields.client_secret
    const response = await server.fetch(
      `/api/oauth/token?client_secret=${encodeURIComponent(secret)}`,
      formInit(fields),
    )
    const body = await expectOAuthError(response, 401)
    expect(body.error).toBe('invalid_client')
  })

  it('reads the code from the form only, never from the query string', async () => {
    const { user } = await createPerson(server)
    const minted = await mintCode(server, client, user)
    const fields = codeFields(minted)
    delete fields.code
    const response = await server.fetch(
      `/api/oauth/token?code=${encodeURIComponent(minted.code)}`,
      formInit(fields),
    )
    const body = await expectOAuthError(response, 400)
    expect(body.error).toBe('invalid_request')
    // The code is still good: the query string was never looked at.
    expect((await postToken(server, codeFields(minted))).status).toBe(200)
  })

  it('reads token from the form only at revocation and introspection', async () => {
    for (const path of ['/api/oauth/revoke', '/api/oauth/introspect']) {
      const response = await server.fetch(
        `${path}?token=pat_${'A'.repeat(43)}`,
        formInit({ client_id: client.clientId }),
      )
      const body = await expectOAuthError(response, 400)
      expect(body.error, path).toBe('invalid_request')
    }
  })
})

describe('RFC 6749 §5.2: error_description never holds " or \\ or non-ASCII, whatever was sent', () => {
  it('at registration, for a refused redirect URI carrying quotes, backslashes and Unicode', async () => {
    const response = await server.fetch('/api/oauth/register', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:1/"\\é…\u0000'] }),
    })
    const body = await expectOAuthError(response, 400)
    expect(body.error_description).toMatch(NQSCHAR)
  })

  it('at registration, for a JSON key given twice or a forbidden key', async () => {
    for (const text of ['{"a":1,"a":2}', '{"__proto__":{}}', '{"x\\"y":1,"x\\"y":2}']) {
      const response = await server.fetch('/api/oauth/register', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: text,
      })
      const body = await expectOAuthError(response, 400)
      expect(body.error_description, text).toMatch(NQSCHAR)
    }
  })

  it('at the token endpoint, where descriptions cite RFC sections (no § sign)', async () => {
    const { user } = await createPerson(server)
    const minted = await mintCode(server, client, user)
    const response = await postToken(server, codeFields(minted, { code_verifier: 'short' }))
    const body = await expectOAuthError(response, 400)
    expect(body.error_description).toContain('RFC 7636 section 4.1')
  })

  it('in the error redirect of an unknown scope, whose description quotes it', async () => {
    const location = expectErrorRedirect(
      await authorize(authorizeParams({ scope: 'openid no-such-scope' })),
      'invalid_scope',
    )
    expect(location.searchParams.get('error_description')).toMatch(NQSCHAR)
  })
})
