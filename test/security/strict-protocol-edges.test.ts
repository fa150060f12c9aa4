import { readFile } from 'node:fs/promises'
import { request as httpRequest } from 'node:http'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MAX_STATE_BYTES } from '../../src/oauth/authorize/state.js'
import { signedInBrowser } from '../http/authorize/support.js'
import {
  type Browser,
  createPerson,
  createPkce,
  registerTestClient,
  runAuthorization,
  type TestClient,
  type TestPerson,
} from '../support/flow.js'
import { formInit, jsonInit, readJson } from '../support/http.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { issue } from '../support/token-lifecycle.js'
import { expectHtmlPage, expectOAuthError, expectProblem, rowCounts, snapshot } from './support.js'

/**
 * Issue 16, "Strict protocol edges": the places where a lenient answer lets two parties read
 * one request two ways. Each case is named after the clause it holds Portico to.
 */

let server: TestServer
let client: TestClient
let person: TestPerson
let browser: Browser

beforeAll(async () => {
  server = await startTestServer()
  client = await registerTestClient(server)
  person = await createPerson(server)
  browser = await signedInBrowser(server, person)
})
afterAll(async () => {
  await server?.close()
})

interface RawResponse {
  readonly status: number
  readonly headers: Record<string, string | string[] | undefined>
  readonly text: string
}

/**
 * A request through node:http, which sends what fetch() cannot: a header field twice (fetch
 * joins them into one) and a path exactly as written.
 */
function send(
  path: string,
  options: { method?: string; headers?: Record<string, string | string[]>; body?: string } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${server.issuer}${path}`,
      { method: options.method ?? 'GET', headers: options.headers, timeout: 10_000 },
      (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => {
          text += chunk
        })
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }))
      },
    )
    req.on('timeout', () => req.destroy(new Error('request timed out')))
    req.on('error', reject)
    req.end(options.body)
  })
}

/** A valid authorization request for `client`; `overrides` replace, `undefined` removes. */
function authorizeQuery(overrides: Record<string, string | undefined> = {}): URLSearchParams {
  const fields: Record<string, string | undefined> = {
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: client.redirectUri,
    scope: 'openid profile',
    state: 'st',
    code_challenge: createPkce().challenge,
    code_challenge_method: 'S256',
    ...overrides,
  }
  const search = new URLSearchParams()
  for (const [key, value] of Object.entries(fields))
    if (value !== undefined) search.append(key, value)
  return search
}

/** The `state` of a redirect, read by two decoders that disagree about `+`. */
function statesOf(location: string): { form: string | null; uri: string | undefined } {
  const query = location.slice(location.indexOf('?') + 1)
  const raw = query
    .split('&')
    .filter((pair) => pair.startsWith('state='))
    .map((pair) => decodeURIComponent(pair.slice('state='.length)))
  expect(raw.length).toBeLessThanOrEqual(1)
  return { form: new URLSearchParams(query).get('state'), uri: raw[0] }
}

/** Expects `location` to carry `state` exactly, whichever decoder the client uses. */
function expectStateReturned(location: string | null, state: string): void {
  expect(location).not.toBeNull()
  const read = statesOf(location ?? '')
  expect(read.form).toBe(state)
  expect(read.uri).toBe(state)
}

describe('RFC 8414 §2 and OpenID Connect Discovery 1.0 §3: one metadata document', () => {
  it('the RFC 8414 document carries every OpenID field, equal to the openid-configuration', async () => {
    const rfc8414 = await server.fetch('/.well-known/oauth-authorization-server')
    const oidc = await server.fetch('/.well-known/openid-configuration')
    const as = await readJson(rfc8414.clone())
    for (const field of [
      'id_token_signing_alg_values_supported',
      'subject_types_supported',
      'claims_supported',
      'userinfo_endpoint',
      'jwks_uri',
      'response_types_supported',
      'scopes_supported',
    ]) {
      expect(as[field], field).toBeDefined()
    }
    expect(as.userinfo_endpoint).toBe(`${server.issuer}/api/oauth/userinfo`)
    // Built once from one source: the same bytes at both addresses.
    expect(await rfc8414.text()).toBe(await oidc.text())
  })

  it('a client reading only RFC 8414 finds a key of every advertised ID token algorithm', async () => {
    const as = await readJson(await server.fetch('/.well-known/oauth-authorization-server'))
    const jwks = await readJson(await server.fetch(new URL(as.jwks_uri).pathname))
    const algs = new Set(jwks.keys.map((key: { alg: string }) => key.alg))
    expect(as.id_token_signing_alg_values_supported.length).toBeGreaterThan(0)
    for (const alg of as.id_token_signing_alg_values_supported)
      expect(algs.has(alg), alg).toBe(true)
  })
})

describe('OpenID Connect Core §3.1.2.1: redirect_uri is REQUIRED at the authorization endpoint', () => {
  for (const [what, value] of [
    ['absent', undefined],
    ['empty', ''],
  ] as const) {
    it(`${what}: an error page, never a consent page or a redirect, and nothing stored`, async () => {
      const before = await rowCounts(server)
      for (const extra of [{}, { prompt: 'none' }, { prompt: 'consent' }]) {
        const query = authorizeQuery({ redirect_uri: value, ...extra })
        // A signed-in browser would otherwise see the consent page straight away.
        const page = await expectHtmlPage(await browser.request(`/oauth/authorize?${query}`), 400)
        expect(page).toContain('redirect_uri is required')
        expect(page).not.toContain('name="decision"')
        const form = await browser.request('/oauth/authorize', formInit(Object.fromEntries(query)))
        expect(await expectHtmlPage(form, 400)).toContain('redirect_uri is required')
      }
      expect(await rowCounts(server)).toEqual(before)
    })
  }

  it('the same request with the registered redirect_uri reaches the consent page', async () => {
    const response = await browser.request(`/oauth/authorize?${authorizeQuery()}`)
    expect(response.status).toBe(200)
    expect(await response.text()).toContain('name="decision"')
  })
})

/** Values a client may put in `state`, each with bytes a careless encoder would change. */
const ODD_STATES: ReadonlyArray<readonly [string, string]> = [
  ['a plus sign', 'a+b'],
  ['a space', 'a b'],
  ['a plus and a space', ' + '],
  ['a percent sign', '100%'],
  ['something that looks like an escape', '%41%2B%zz'],
  ['an ampersand and an equals sign', 'a&state=evil&iss=x'],
  ['unicode', 'é中文😀'],
  ['base64 with padding', 'ab+/cd=='],
  ['reserved characters', "?#/[]@!$'()*,;:"],
  ['a tab', 'a\tb'],
]

describe('RFC 6749 §4.1.2, §4.1.2.1: state returned byte for byte on every redirect', () => {
  it.each(ODD_STATES)('%s: exactly, with a code after approval', async (_what, state) => {
    const result = await runAuthorization(server, client, person, { browser, extra: { state } })
    expect(result.code).toMatch(/^pac_/)
    expectStateReturned(result.location.href, state)
  })

  it.each(ODD_STATES)('%s: exactly, with an error (GET and form POST)', async (_what, state) => {
    const query = authorizeQuery({ state, scope: 'no-such-scope' })
    const get = await browser.request(`/oauth/authorize?${query}`)
    expect(get.status).toBe(303)
    expectStateReturned(get.headers.get('location'), state)
    const post = await browser.request('/oauth/authorize', formInit(Object.fromEntries(query)))
    expect(post.status).toBe(303)
    expectStateReturned(post.headers.get('location'), state)
  })

  it('exactly, when the person denies the request', async () => {
    const state = 'deny + 100% & é'
    const result = await runAuthorization(server, client, person, {
      browser,
      decision: 'deny',
      extra: { state },
    })
    expect(result.location.searchParams.get('error')).toBe('access_denied')
    expectStateReturned(result.location.href, state)
  })

  it('spaces come back as %20, never +, so decodeURIComponent reads them too', async () => {
    const get = await browser.request(
      `/oauth/authorize?${authorizeQuery({ state: 'a b', scope: 'no-such-scope' })}`,
    )
    const location = get.headers.get('location') ?? ''
    expect(location).toContain('state=a%20b')
    expect(location).toContain('error_description=')
    expect(location).not.toMatch(/[?&]state=[^&]*\+/)
  })

  it(`up to the documented bound (${MAX_STATE_BYTES} bytes of UTF-8): exactly, success and error`, async () => {
    // 682 three-byte characters and two bytes: 2048 bytes, 684 characters.
    const state = `${'€'.repeat(682)}ab`
    expect(Buffer.byteLength(state)).toBe(MAX_STATE_BYTES)
    const result = await runAuthorization(server, client, person, { browser, extra: { state } })
    expect(result.code).toMatch(/^pac_/)
    expectStateReturned(result.location.href, state)
    const error = await browser.request(
      `/oauth/authorize?${authorizeQuery({ state, response_type: 'token' })}`,
    )
    expect(error.status).toBe(303)
    expectStateReturned(error.headers.get('location'), state)
  })

  it('beyond the bound by one byte: an error page, not a redirect that drops state', async () => {
    const before = await rowCounts(server)
    for (const state of [`${'€'.repeat(682)}abc`, 's'.repeat(MAX_STATE_BYTES + 1)]) {
      for (const extra of [{}, { scope: 'no-such-scope' }, { response_type: 'token' }]) {
        const query = authorizeQuery({ state, ...extra })
        const get = await browser.request(`/oauth/authorize?${query}`)
        expect(await expectHtmlPage(get, 400)).toContain(`longer than ${MAX_STATE_BYTES} bytes`)
        const post = await browser.request('/oauth/authorize', formInit(Object.fromEntries(query)))
        expect(await expectHtmlPage(post, 400)).toContain(`longer than ${MAX_STATE_BYTES} bytes`)
      }
    }
    expect(await rowCounts(server)).toEqual(before)
  })

  it('state given twice, or escapes that are not UTF-8: an error page (it cannot be returned exactly)', async () => {
    const twice = authorizeQuery({ state: 'one' })
    twice.append('state', 'two')
    const page = await expectHtmlPage(await browser.request(`/oauth/authorize?${twice}`), 400)
    expect(page).toContain('state was given more than once')
    for (const raw of ['%FF', 'a%C3', '%ED%A0%80', '%C0%AF']) {
      const query = `${authorizeQuery({ state: undefined })}&state=${raw}`
      const response = await browser.request(`/oauth/authorize?${query}`)
      expect(await expectHtmlPage(response, 400), raw).toContain('state must be text')
      // The name itself may be encoded; it is still state.
      const encodedName = `${authorizeQuery({ state: undefined })}&st%61te=${raw}`
      await expectHtmlPage(await browser.request(`/oauth/authorize?${encodedName}`), 400)
      // The same as a form post (OIDC Core §3.1.2.1).
      const post = await browser.request('/oauth/authorize', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: query,
      })
      expect(await expectHtmlPage(post, 400), `POST ${raw}`).toContain('state must be text')
    }
  })

  it('property: any text state on any redirect, code or error, comes back exactly (fast-check, fixed seed)', async () => {
    const state = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 40 }),
      fc.string({ unit: 'binary', maxLength: 40 }),
      fc.string({
        unit: fc.constantFrom('+', '%', '&', '=', ' ', '#', '?', '/', 'é', '😀', '2', 'B'),
        maxLength: 30,
      }),
    )
    const variant = fc.constantFrom<Record<string, string>>(
      {},
      { scope: 'no-such-scope' },
      { response_type: 'token' },
      { code_challenge_method: 'plain' },
      { prompt: 'none' },
    )
    await fc.assert(
      fc.asyncProperty(state, variant, async (value, extra) => {
        fc.pre(!/\p{Cs}/u.test(value))
        const query = authorizeQuery({ state: value, ...extra })
        const response = await browser.request(`/oauth/authorize?${query}`)
        const location = response.headers.get('location')
        if (response.status === 200) return // the consent page: state is returned after it
        expect(response.status).toBe(303)
        expect(location?.startsWith(client.redirectUri)).toBe(true)
        expectStateReturned(location, value)
      }),
      { seed: 16_016, numRuns: 60 },
    )
  })

  it('the README documents the bound that the server applies', async () => {
    const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8')
    expect(readme).toContain(`\`state\` of up to ${MAX_STATE_BYTES} bytes`)
  })
})

describe('RFC 6750 §3.1, RFC 9110 §5.3: two Authorization headers are 400 invalid_request', () => {
  let accessToken: string
  beforeAll(async () => {
    accessToken = (await issue(server, { scope: 'openid courses:read' })).accessToken
  })
  const twice = (first: string, second: string) => ({ Authorization: [first, second] })

  it('the API answers one valid header, and refuses it sent twice (problem+json, challenge)', async () => {
    const once = await send('/api/v1/courses', {
      headers: { authorization: `Bearer ${accessToken}` },
    })
    expect(once.status).toBe(200)
    for (const second of [`Bearer ${accessToken}`, 'Bearer pat_other', 'Basic YTpi']) {
      const raw = await send('/api/v1/courses', { headers: twice(`Bearer ${accessToken}`, second) })
      expect(raw.status, second).toBe(400)
      expect(raw.headers['content-type']).toMatch(/^application\/problem\+json/)
      const body = JSON.parse(raw.text) as Record<string, unknown>
      expect(body.code).toBe('invalid_request')
      expect(body.status).toBe(400)
      expect(String(raw.headers['www-authenticate'])).toMatch(/^Bearer error="invalid_request"/)
      expect(raw.headers['access-control-allow-origin']).toBe('*')
    }
  })

  it('userinfo: OAuth JSON invalid_request with a Bearer challenge', async () => {
    const once = await send('/api/oauth/userinfo', {
      headers: { authorization: `Bearer ${accessToken}` },
    })
    expect(once.status).toBe(200)
    const raw = await send('/api/oauth/userinfo', {
      headers: twice(`Bearer ${accessToken}`, `bearer ${accessToken}`),
    })
    expect(raw.status).toBe(400)
    expect(raw.headers['content-type']).toMatch(/^application\/json/)
    expect(JSON.parse(raw.text).error).toBe('invalid_request')
    expect(String(raw.headers['www-authenticate'])).toMatch(/^Bearer error="invalid_request"/)
  })

  it('the token, revocation and registration endpoints: OAuth JSON invalid_request, nothing stored', async () => {
    const tables = ['clients', 'grants', 'access_tokens', 'refresh_tokens'] as const
    const before = await snapshot(server, tables)
    const form = { 'content-type': 'application/x-www-form-urlencoded' }
    const requests: Array<[string, string, string]> = [
      [
        '/api/oauth/token',
        'grant_type=refresh_token&refresh_token=prt_x&client_id=x',
        form['content-type'],
      ],
      [
        '/api/oauth/revoke',
        `token=${accessToken}&client_id=${client.clientId}`,
        form['content-type'],
      ],
      [
        '/api/oauth/register',
        JSON.stringify({ redirect_uris: ['http://127.0.0.1:1/cb'] }),
        'application/json',
      ],
    ]
    for (const [path, body, type] of requests) {
      const raw = await send(path, {
        method: 'POST',
        headers: { 'content-type': type, ...twice('Basic YTpi', 'Basic YzpkZA==') },
        body,
      })
      expect(raw.status, path).toBe(400)
      expect(raw.headers['content-type'], path).toMatch(/^application\/json/)
      expect(JSON.parse(raw.text).error, path).toBe('invalid_request')
      expect(raw.headers['www-authenticate'], path).toBeUndefined()
    }
    expect(await snapshot(server, tables)).toEqual(before)
    // The access token was not revoked by the refused request.
    const still = await send('/api/oauth/userinfo', {
      headers: { authorization: `Bearer ${accessToken}` },
    })
    expect(still.status).toBe(200)
  })

  it('a page: the error page, 400', async () => {
    const raw = await send(`/oauth/authorize?${authorizeQuery()}`, {
      headers: twice('Bearer a', 'Bearer b'),
    })
    expect(raw.status).toBe(400)
    expect(raw.headers['content-type']).toMatch(/^text\/html/)
    expect(raw.headers.location).toBeUndefined()
  })
})

/** Paths that other software treats as special, each in the exact loopback form otherwise. */
const SPECIAL_PATHS: ReadonlyArray<readonly [string, string]> = [
  ['an asterisk', '/*'],
  ['an asterisk segment', '/cb/*'],
  ['an asterisk in a segment', '/c*b'],
  ['a path parameter hiding a dot-dot segment (Tomcat)', '/a/..;/cb'],
  ['a path parameter', '/cb;jsessionid=1'],
  ['an empty path parameter', '/;/cb'],
  ['a dot-dot segment', '/a/../cb'],
  ['a trailing dot-dot segment', '/a/..'],
  ['a dot segment', '/./cb'],
  ['a trailing dot segment', '/cb/.'],
  ['a segment of three dots', '/a/.../cb'],
  ['an encoded dot-dot segment', '/a/%2e%2e/cb'],
  ['an upper-case encoded dot-dot segment', '/a/%2E%2E/cb'],
  ['an encoded dot, then a dot', '/a/%2E./cb'],
  ['a dot, then an encoded dot', '/a/.%2e/cb'],
  ['an encoded dot segment', '/%2e/cb'],
  ['a double-encoded dot-dot segment', '/a/%252e%252e/cb'],
  ['an encoded percent', '/cb%25'],
]

describe('RFC 7591 §2, RFC 3986 §3.3, §5.2.4: registration refuses paths others read otherwise', () => {
  it.each(SPECIAL_PATHS)(
    '%s (%s): 400 invalid_redirect_uri, nothing stored',
    async (_what, path) => {
      const before = await snapshot(server, ['clients'])
      const uri = `http://127.0.0.1:8080${path}`
      const response = await server.fetch('/api/oauth/register', jsonInit({ redirect_uris: [uri] }))
      const body = await expectOAuthError(response, 400)
      expect(body.error).toBe('invalid_redirect_uri')
      expect(await snapshot(server, ['clients'])).toEqual(before)
    },
  )

  it('still accepts ordinary paths with dots and sub-delimiters', async () => {
    for (const path of ['/cb', '/.well/known.json', '/a.b/c..d', "/a-b_c~d!$&'()+,=:@"]) {
      const uri = `http://127.0.0.1:8080${path}`
      const response = await server.fetch('/api/oauth/register', jsonInit({ redirect_uris: [uri] }))
      expect(response.status, path).toBe(201)
    }
  })
})

/** Every spelling of a page path: the same page, never with a CORS header. */
const PAGE_SPELLINGS: ReadonlyArray<readonly [string, readonly string[]]> = [
  ['/login', ['/%6cogin', '/%6Cogin', '/l%6Fgin', '/%6C%6F%67%69%6E']],
  ['/account', ['/%61ccount', '/acc%6funt', '/%61%63%63%6F%75%6E%74']],
  ['/docs', ['/d%6fcs', '/%64ocs']],
  ['/oauth/authorize', ['/%6fauth/authorize', '/oauth/%61uthorize', '/oauth/authoriz%65']],
  ['/oauth/authorize/continue', ['/oauth/authorize/%63ontinue']],
]

describe('page routes never send CORS headers, whichever way their path is spelled', () => {
  const corsHeaders = (headers: Headers) =>
    [...headers.keys()].filter((name) => name.startsWith('access-control-'))

  it.each(PAGE_SPELLINGS)(
    'RFC 3986 §6.2.2.2: %s and its percent-encoded spellings are one page, without CORS',
    async (canonical, spellings) => {
      const query = canonical === '/oauth/authorize' ? `?${authorizeQuery()}` : ''
      const expected = await browser.request(`${canonical}${query}`, {
        headers: { origin: 'https://evil.example' },
      })
      expect(expected.status).not.toBe(404)
      expect(corsHeaders(expected.headers)).toEqual([])
      for (const spelling of [canonical, ...spellings]) {
        for (const method of ['GET', 'POST', 'OPTIONS']) {
          const response = await browser.request(`${spelling}${query}`, {
            method,
            headers: {
              origin: 'https://evil.example',
              'access-control-request-method': 'POST',
              ...(method === 'POST' && { 'content-type': 'application/x-www-form-urlencoded' }),
            },
            ...(method === 'POST' && { body: 'x=1' }),
          })
          expect(corsHeaders(response.headers), `${method} ${spelling}`).toEqual([])
          if (method === 'GET') {
            expect(response.status, spelling).toBe(expected.status)
            expect(response.headers.get('content-type'), spelling).toBe(
              expected.headers.get('content-type'),
            )
          }
        }
      }
    },
  )

  it('an API path spelled with escapes is the same API resource, with CORS as before', async () => {
    for (const spelling of ['/api/v1/courses', '/%61pi/v1/courses', '/api/v1/c%6Furses']) {
      const response = await server.fetch(spelling, { headers: { origin: 'https://x.example' } })
      expect(response.status, spelling).toBe(200)
      expect(response.headers.get('access-control-allow-origin'), spelling).toBe('*')
    }
  })

  it('reserved escapes are not decoded: %2F is not a slash, so no page is reached', async () => {
    for (const spelling of ['/oauth%2Fauthorize', '/oauth%2fauthorize', '/%2Flogin', '/login%2F']) {
      const response = await server.fetch(spelling, { headers: { origin: 'https://x.example' } })
      expect(response.status, spelling).toBe(404)
      await expectProblem(response, 404)
    }
  })

  it('the request log names the normalised path', async () => {
    await server.fetch('/%6Cogin?request=x')
    const line = server.logs.findLast((entry) => entry.msg === 'request')
    expect(line?.path).toBe('/login')
  })
})
