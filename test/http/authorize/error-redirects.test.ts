import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestClient, TestPerson } from '../../support/flow.js'
import { Browser, createPerson, createPkce, registerTestClient } from '../../support/flow.js'
import { startTestServer, type TestServer } from '../../support/server.js'
import {
  createIntegrationClient,
  expectErrorPage,
  expectErrorRedirect,
  locationOf,
  openConsent,
  signedInBrowser,
} from './support.js'

/**
 * Issue 3, "GET /oauth/authorize": once client and redirect URI are known good, every other
 * error goes back to the client as a redirect carrying error, error_description, state and
 * iss.
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

const STATE = 'opaque-state_123'

function params(
  forClient: TestClient,
  overrides: Record<string, string | undefined> = {},
): [string, string][] {
  const base: Record<string, string | undefined> = {
    response_type: 'code',
    client_id: forClient.clientId,
    redirect_uri: forClient.redirectUri,
    scope: 'openid profile',
    state: STATE,
    code_challenge: createPkce().challenge,
    code_challenge_method: 'S256',
    ...overrides,
  }
  return Object.entries(base).filter((e): e is [string, string] => e[1] !== undefined)
}

function authorize(entries: [string, string][], browser = new Browser(server)): Promise<Response> {
  return browser.request(`/oauth/authorize?${new URLSearchParams(entries)}`)
}

/** Asserts that the request is refused with `error`, as a redirect to the client. */
async function expectRefused(
  overrides: Record<string, string | undefined>,
  error: string,
): Promise<URL> {
  return expectErrorRedirect(
    await authorize(params(client, overrides)),
    server,
    client,
    error,
    STATE,
  )
}

describe('response_type', () => {
  it('answers unsupported_response_type for response_type=token', async () => {
    await expectRefused({ response_type: 'token' }, 'unsupported_response_type')
  })

  it('answers unsupported_response_type for response_type=id_token', async () => {
    await expectRefused({ response_type: 'id_token' }, 'unsupported_response_type')
  })

  it('answers unsupported_response_type for the hybrid "code id_token"', async () => {
    await expectRefused({ response_type: 'code id_token' }, 'unsupported_response_type')
  })

  it('answers unsupported_response_type for CODE in other case', async () => {
    await expectRefused({ response_type: 'CODE' }, 'unsupported_response_type')
  })

  it('answers invalid_request when response_type is missing (a required parameter)', async () => {
    // RFC 6749 §4.1.2.1: a missing required parameter is invalid_request; only a value
    // other than "code" is unsupported_response_type.
    const location = await expectRefused({ response_type: undefined }, 'invalid_request')
    expect(location.searchParams.get('error_description')).toContain('response_type')
  })
})

describe('PKCE (RFC 7636, S256 only)', () => {
  it('answers invalid_request when code_challenge is missing', async () => {
    const location = await expectRefused({ code_challenge: undefined }, 'invalid_request')
    expect(location.searchParams.get('error_description')).toContain('code_challenge')
  })

  it('answers invalid_request when code_challenge is empty', async () => {
    await expectRefused({ code_challenge: '' }, 'invalid_request')
  })

  it('answers invalid_request for a code_challenge that is too short (42 characters)', async () => {
    await expectRefused({ code_challenge: 'a'.repeat(42) }, 'invalid_request')
  })

  it('answers invalid_request for a code_challenge that is too long (44 characters)', async () => {
    await expectRefused({ code_challenge: 'a'.repeat(44) }, 'invalid_request')
  })

  it('answers invalid_request for a code_challenge outside the base64url alphabet', async () => {
    await expectRefused({ code_challenge: `${'a'.repeat(42)}=` }, 'invalid_request')
    await expectRefused({ code_challenge: `${'a'.repeat(42)}+` }, 'invalid_request')
  })

  it('answers invalid_request when code_challenge_method is missing: it is never read as plain', async () => {
    const location = await expectRefused({ code_challenge_method: undefined }, 'invalid_request')
    expect(location.searchParams.get('error_description')).toContain('code_challenge_method')
  })

  it('answers invalid_request for code_challenge_method=plain', async () => {
    await expectRefused({ code_challenge_method: 'plain' }, 'invalid_request')
  })

  it('answers invalid_request for code_challenge_method=plain with a 43-character verifier as challenge', async () => {
    await expectRefused(
      { code_challenge_method: 'plain', code_challenge: createPkce().verifier },
      'invalid_request',
    )
  })

  it('answers invalid_request for an unknown code_challenge_method', async () => {
    await expectRefused({ code_challenge_method: 'S512' }, 'invalid_request')
    await expectRefused({ code_challenge_method: 's256' }, 'invalid_request')
  })
})

describe('scope', () => {
  it('answers invalid_scope when scope is missing', async () => {
    await expectRefused({ scope: undefined }, 'invalid_scope')
  })

  it('answers invalid_scope when scope is empty', async () => {
    await expectRefused({ scope: '' }, 'invalid_scope')
  })

  it('answers invalid_scope for an unknown scope', async () => {
    const location = await expectRefused({ scope: 'openid storage:read' }, 'invalid_scope')
    expect(location.searchParams.get('error_description')).toContain('storage:read')
  })

  it('answers invalid_scope for a scope in other case', async () => {
    await expectRefused({ scope: 'openid Courses:read' }, 'invalid_scope')
  })

  it('answers invalid_scope for a malformed scope list (doubled space)', async () => {
    await expectRefused({ scope: 'openid  profile' }, 'invalid_scope')
  })

  it('lets a client ask for a scope beyond what it registered (step-up; consent decides)', async () => {
    const narrow = await registerTestClient(server, { scope: 'openid profile' })
    const response = await authorize(params(narrow, { scope: 'openid courses:read' }))
    expect(response.status).toBe(303)
    expect(locationOf(response)).toMatch(/^\/login\?request=/)
  })

  it('accepts a subset of the scopes the client registered', async () => {
    const narrow = await registerTestClient(server, { scope: 'openid profile courses:read' })
    const response = await authorize(params(narrow, { scope: 'openid' }))
    expect(response.status).toBe(303)
    expect(locationOf(response)).toMatch(/^\/login\?request=/)
  })
})

describe('a parameter given twice is invalid_request', () => {
  for (const name of [
    'response_type',
    'scope',
    'code_challenge',
    'code_challenge_method',
    'nonce',
    'prompt',
    'resource',
    'max_age',
    'login_hint',
  ]) {
    it(`answers invalid_request when ${name} is given twice`, async () => {
      const entries = params(client, {
        nonce: 'n',
        prompt: 'consent',
        max_age: '60',
        resource: server.issuer,
        login_hint: 'someone@example.com',
      })
      const value = entries.find(([key]) => key === name)?.[1] ?? ''
      entries.push([name, value])
      const location = expectErrorRedirect(
        await authorize(entries),
        server,
        client,
        'invalid_request',
        STATE,
      )
      expect(location.searchParams.get('error_description')).toContain(name)
    })
  }

  it('shows an error page when state is given twice: no redirect could return it exactly', async () => {
    const entries = params(client)
    entries.push(['state', 'another'])
    // Neither value can be trusted to be the client's, and a redirect without state would
    // break "state returned on every redirect" (issue 16): a page, as for redirect_uri.
    const page = await expectErrorPage(await authorize(entries))
    expect(page).toContain('state was given more than once')
  })
})

describe('response_mode, request objects and resource', () => {
  it('answers invalid_request for response_mode=fragment', async () => {
    await expectRefused({ response_mode: 'fragment' }, 'invalid_request')
  })

  it('answers invalid_request for response_mode=form_post', async () => {
    await expectRefused({ response_mode: 'form_post' }, 'invalid_request')
  })

  it('accepts response_mode=query, the only mode it answers in', async () => {
    const response = await authorize(params(client, { response_mode: 'query' }))
    expect(locationOf(response)).toMatch(/^\/login\?request=/)
  })

  it('answers invalid_request for a request object', async () => {
    await expectRefused({ request: 'eyJhbGciOiJub25lIn0.e30.' }, 'invalid_request')
  })

  it('answers invalid_request for request_uri', async () => {
    await expectRefused({ request_uri: 'urn:ietf:params:oauth:request_uri:abc' }, 'invalid_request')
  })

  it('answers invalid_target for an unknown resource', async () => {
    await expectRefused({ resource: 'https://api.elsewhere.example/' }, 'invalid_target')
  })

  it('answers invalid_target for a resource that only resembles the issuer', async () => {
    await expectRefused({ resource: `${server.issuer}/api` }, 'invalid_target')
    await expectRefused({ resource: `${server.issuer}//` }, 'invalid_target')
  })

  it('accepts the issuer as resource', async () => {
    const response = await authorize(params(client, { resource: server.issuer }))
    expect(locationOf(response)).toMatch(/^\/login\?request=/)
  })

  it('accepts the issuer with a trailing slash as the same resource', async () => {
    const response = await authorize(params(client, { resource: `${server.issuer}/` }))
    expect(locationOf(response)).toMatch(/^\/login\?request=/)
  })
})

describe('prompt, max_age, nonce and state values', () => {
  it('answers login_required for prompt=none without a session', async () => {
    await expectRefused({ prompt: 'none' }, 'login_required')
  })

  it('answers consent_required for prompt=none with a session, for a self-registered client', async () => {
    const browser = await signedInBrowser(server, person)
    const response = await authorize(params(client, { prompt: 'none' }), browser)
    expectErrorRedirect(response, server, client, 'consent_required', STATE)
  })

  it('never gives a self-registered client a code with prompt=none, even after an approval', async () => {
    const browser = await signedInBrowser(server, person)
    const first = await openConsent(browser, client, person, { scope: 'openid profile' })
    expect(first.request).toMatch(/^par_/)
    const response = await authorize(params(client, { prompt: 'none' }), browser)
    expectErrorRedirect(response, server, client, 'consent_required', STATE)
  })

  it('answers consent_required for prompt=none to an integration the person never approved', async () => {
    const integration = await createIntegrationClient(server)
    const browser = await signedInBrowser(server, person)
    const response = await authorize(params(integration, { prompt: 'none' }), browser)
    expectErrorRedirect(response, server, integration, 'consent_required', STATE)
  })

  it('answers login_required for prompt=none when max_age has run out', async () => {
    const browser = await signedInBrowser(server, person)
    await new Promise((resolve) => setTimeout(resolve, 10))
    const response = await authorize(params(client, { prompt: 'none', max_age: '0' }), browser)
    expectErrorRedirect(response, server, client, 'login_required', STATE)
  })

  it('answers invalid_request for prompt=none combined with another value', async () => {
    await expectRefused({ prompt: 'none login' }, 'invalid_request')
  })

  it('answers invalid_request for an unknown prompt value', async () => {
    await expectRefused({ prompt: 'always' }, 'invalid_request')
  })

  it('answers invalid_request for a max_age that is not a whole number', async () => {
    await expectRefused({ max_age: '-1' }, 'invalid_request')
    await expectRefused({ max_age: '1.5' }, 'invalid_request')
    await expectRefused({ max_age: 'soon' }, 'invalid_request')
  })

  it('answers invalid_request for an oversize nonce', async () => {
    await expectRefused({ nonce: 'n'.repeat(513) }, 'invalid_request')
  })

  it('shows an error page for an oversize state, never a redirect that drops it', async () => {
    const page = await expectErrorPage(await authorize(params(client, { state: 's'.repeat(2049) })))
    expect(page).toContain('state is longer than 2048 bytes')
  })

  it('accepts a state of 2048 characters and returns it unchanged', async () => {
    const state = 's'.repeat(2048)
    const response = await authorize(params(client, { state, response_type: 'token' }))
    expectErrorRedirect(response, server, client, 'unsupported_response_type', state)
  })

  it('returns state exactly, including characters that need encoding', async () => {
    const state = 'a b&c=d/é?#+%'
    const response = await authorize(params(client, { state, response_type: 'token' }))
    expectErrorRedirect(response, server, client, 'unsupported_response_type', state)
  })

  it('omits state from the error redirect when none was sent', async () => {
    const response = await authorize(params(client, { state: undefined, scope: 'nope' }))
    expectErrorRedirect(response, server, client, 'invalid_scope', undefined)
  })
})
