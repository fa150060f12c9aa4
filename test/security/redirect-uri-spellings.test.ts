import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPkce } from '../support/flow.js'
import { formInit, jsonInit } from '../support/http.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { expectHtmlPage, expectOAuthError, snapshot } from './support.js'

/**
 * RFC 6749 §4.1.2.1, §10.6, §10.15, RFC 9700 §4.1 (redirect URI manipulation, open
 * redirectors): the authorization endpoint compares the redirect URI as a string with the
 * registered one (RFC 8252 §7.3 lets only the port of a loopback IP callback vary). Every
 * spelling a URL parser, a browser or a proxy might read as the registered callback, or as
 * another host, is refused with an HTML page: no Location header, nothing sent anywhere.
 */

const PORT = 49321
const REGISTERED = `http://127.0.0.1:${PORT}/cb`
const P = String(PORT)

/** [what the attack is, the redirect_uri sent]. */
const SPELLINGS: ReadonlyArray<readonly [string, string]> = [
  // Hosts that parse to 127.0.0.1, or to another loopback name.
  ['short IPv4 form 127.1', `http://127.1:${P}/cb`],
  ['three-part IPv4 form 127.0.1', `http://127.0.1:${P}/cb`],
  ['decimal integer host', `http://2130706433:${P}/cb`],
  ['hexadecimal integer host', `http://0x7f000001:${P}/cb`],
  ['hexadecimal first octet', `http://0x7f.0.0.1:${P}/cb`],
  ['octal first octet', `http://0177.0.0.1:${P}/cb`],
  ['zero-padded octets', `http://127.000.000.001:${P}/cb`],
  ['trailing dot after the address', `http://127.0.0.1.:${P}/cb`],
  ['percent-encoded host', `http://%31%32%37.0.0.1:${P}/cb`],
  ['full-width digits (IDNA maps them to 127.0.0.1)', `http://１２７.０.０.１:${P}/cb`],
  ['ideographic full stops', `http://127。0。0。1:${P}/cb`],
  ['localhost', `http://localhost:${P}/cb`],
  ['LOCALHOST in capitals', `http://LOCALHOST:${P}/cb`],
  ['localhost with a trailing dot', `http://localhost.:${P}/cb`],
  ['another 127/8 address', `http://127.0.0.2:${P}/cb`],
  ['0.0.0.0', `http://0.0.0.0:${P}/cb`],
  ['IPv6 loopback [::1]', `http://[::1]:${P}/cb`],
  ['IPv6 loopback spelled out', `http://[0:0:0:0:0:0:0:1]:${P}/cb`],
  ['IPv4-mapped IPv6', `http://[::ffff:127.0.0.1]:${P}/cb`],
  ['IPv4-mapped IPv6 in hex', `http://[::ffff:7f00:1]:${P}/cb`],
  ['IPv4-compatible IPv6', `http://[::127.0.0.1]:${P}/cb`],
  ['IPv6 with a zone id', `http://[fe80::1%25lo]:${P}/cb`],
  // Schemes.
  ['HTTP in capitals', `HTTP://127.0.0.1:${P}/cb`],
  ['mixed-case scheme', `Http://127.0.0.1:${P}/cb`],
  ['https instead of http', `https://127.0.0.1:${P}/cb`],
  ['javascript: scheme', `javascript:alert(1)//127.0.0.1:${P}/cb`],
  ['data: scheme', 'data:text/html,<script>alert(1)</script>'],
  ['scheme-relative URI', `//127.0.0.1:${P}/cb`],
  ['scheme-relative foreign host', '//evil.example/cb'],
  ['relative path', '/cb'],
  ['bare word', 'cb'],
  // Ports.
  ['no port', 'http://127.0.0.1/cb'],
  ['port 0', 'http://127.0.0.1:0/cb'],
  ['port 65536', 'http://127.0.0.1:65536/cb'],
  ['port with a leading zero', `http://127.0.0.1:0${P}/cb`],
  ['port with a plus sign', `http://127.0.0.1:+${P}/cb`],
  ['two ports', `http://127.0.0.1:${P}:${P}/cb`],
  ['empty port', 'http://127.0.0.1:/cb'],
  // User-info and host confusion.
  ['user-info naming another host', `http://evil.example@127.0.0.1:${P}/cb`],
  ['the address as user-info of another host', `http://127.0.0.1:${P}@evil.example/cb`],
  ['user and password', `http://user:pass@127.0.0.1:${P}/cb`],
  ['an @ in the path (open redirect trick)', `http://127.0.0.1:${P}/cb@evil.example`],
  ['port 1 and an @ in the path', 'http://127.0.0.1:1/cb@evil.example'],
  ['the address as a subdomain of another host', `http://127.0.0.1.evil.example:${P}/cb`],
  ['the registered URI inside another URI', `http://evil.example/http://127.0.0.1:${P}/cb`],
  ['the registered URI as a query of another', `http://evil.example/?r=http://127.0.0.1:${P}/cb`],
  // Backslashes (browsers read them as slashes in http URLs).
  ['backslashes for every slash', `http:\\\\127.0.0.1:${P}\\cb`],
  ['a backslash before the path', `http://127.0.0.1:${P}\\cb`],
  ['slash-backslash after the scheme', `http:/\\127.0.0.1:${P}/cb`],
  ['backslash then @ and another host', `http://127.0.0.1:${P}\\@evil.example/cb`],
  ['a trailing backslash', `http://127.0.0.1:${P}/cb\\`],
  ['backslash-prefixed foreign host in the path', `http://127.0.0.1:${P}/\\evil.example/cb`],
  // Paths: dot segments, encodings, case, extra characters.
  ['a dot segment', `http://127.0.0.1:${P}/./cb`],
  ['a dot-dot segment', `http://127.0.0.1:${P}/x/../cb`],
  ['a dot-dot segment after the path', `http://127.0.0.1:${P}/cb/../cb`],
  ['an encoded dot segment', `http://127.0.0.1:${P}/%2e/cb`],
  ['an encoded dot-dot segment', `http://127.0.0.1:${P}/x/%2E%2E/cb`],
  ['an encoded letter', `http://127.0.0.1:${P}/%63b`],
  ['an encoded slash', `http://127.0.0.1:${P}/cb%2f`],
  ['an encoded NUL', `http://127.0.0.1:${P}/cb%00`],
  ['a double slash', `http://127.0.0.1:${P}//cb`],
  ['a trailing slash', `http://127.0.0.1:${P}/cb/`],
  ['the path in capitals', `http://127.0.0.1:${P}/CB`],
  ['a path parameter', `http://127.0.0.1:${P}/cb;x=1`],
  ['an empty query', `http://127.0.0.1:${P}/cb?`],
  ['an added query', `http://127.0.0.1:${P}/cb?next=http://evil.example`],
  ['an empty fragment', `http://127.0.0.1:${P}/cb#`],
  ['full-width letters in the path', `http://127.0.0.1:${P}/ｃｂ`],
  // Whitespace and control characters a parser would strip.
  ['a leading space', ` http://127.0.0.1:${P}/cb`],
  ['a trailing space', `http://127.0.0.1:${P}/cb `],
  ['a tab inside the path', `http://127.0.0.1:${P}/c\tb`],
  ['a newline at the end', `http://127.0.0.1:${P}/cb\n`],
  [
    'CR LF and a header (response splitting)',
    `http://127.0.0.1:${P}/cb\r\nLocation: http://evil.example`,
  ],
  ['a NUL character', `http://127.0.0.1:${P}/cb\u0000`],
]

let server: TestServer
let clientId: string

beforeAll(async () => {
  server = await startTestServer()
  const response = await server.fetch(
    '/api/oauth/register',
    jsonInit({ redirect_uris: [REGISTERED], client_name: 'Spelling target' }),
  )
  clientId = ((await response.json()) as { client_id: string }).client_id
})
afterAll(async () => {
  await server?.close()
})

/** A request that is valid except for `redirect_uri`. */
function params(redirectUri: string | undefined): URLSearchParams {
  const search = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    scope: 'openid',
    state: 'spelling',
    code_challenge: createPkce().challenge,
    code_challenge_method: 'S256',
  })
  if (redirectUri !== undefined) search.set('redirect_uri', redirectUri)
  return search
}

function authorizeGet(search: URLSearchParams): Promise<Response> {
  return server.fetch(`/oauth/authorize?${search}`, { redirect: 'manual' })
}

function authorizePost(search: URLSearchParams): Promise<Response> {
  return server.fetch('/oauth/authorize', {
    ...formInit(Object.fromEntries(search)),
    redirect: 'manual',
  })
}

describe('RFC 6749 §4.1.2.1 / RFC 9700 §4.1: confusing redirect_uri spellings at GET /oauth/authorize', () => {
  it('covers at least 70 spellings', () => {
    expect(SPELLINGS.length).toBeGreaterThanOrEqual(70)
  })

  it('the registered URI itself is accepted (the attacks below are not refused for another reason)', async () => {
    const response = await authorizeGet(params(REGISTERED))
    expect(response.status).toBe(303)
    expect(response.headers.get('location')).toMatch(/^\/login\?request=/)
  })

  for (const [what, uri] of SPELLINGS) {
    it(`refuses ${what} with an HTML page and no Location`, async () => {
      const before = await snapshot(server)
      const page = await expectHtmlPage(await authorizeGet(params(uri)), 400)
      expect(page).toMatch(/Unregistered redirect URI|Invalid request/)
      expect(page).not.toContain('evil.example')
      expect(await snapshot(server)).toEqual(before)
    })
  }
})

describe('OIDC Core §3.1.2.1: the same spellings in a form POST to /oauth/authorize', () => {
  it('refuses every one of them with an HTML page and no Location', async () => {
    for (const [what, uri] of SPELLINGS) {
      const response = await authorizePost(params(uri))
      expect(response.headers.get('location'), what).toBeNull()
      expect(response.status, what).toBe(400)
      expect(response.headers.get('content-type'), what).toMatch(/^text\/html/)
    }
  })

  it('reads the form only: a redirect_uri in the query string of a POST is ignored', async () => {
    const response = await server.fetch(
      `/oauth/authorize?redirect_uri=${encodeURIComponent('https://evil.example/cb')}`,
      { ...formInit(Object.fromEntries(params(REGISTERED))), redirect: 'manual' },
    )
    expect(response.status).toBe(303)
    expect(response.headers.get('location')).toMatch(/^\/login\?request=/)
  })
})

describe('RFC 6749 §3.1.2.2, RFC 8252 §8.3: duplicated redirect_uri parameters', () => {
  const pairs: ReadonlyArray<readonly [string, string, string]> = [
    ['registered, then foreign', REGISTERED, 'https://evil.example/cb'],
    ['foreign, then registered', 'https://evil.example/cb', REGISTERED],
    ['registered twice', REGISTERED, REGISTERED],
    ['registered, then empty', REGISTERED, ''],
    ['empty, then foreign', '', 'https://evil.example/cb'],
  ]
  for (const [what, first, second] of pairs) {
    it(`refuses redirect_uri given twice (${what}) on GET and POST, with a page`, async () => {
      const search = params(first)
      search.append('redirect_uri', second)
      await expectHtmlPage(await authorizeGet(search), 400)
      const body = new URLSearchParams(search)
      const response = await server.fetch('/oauth/authorize', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: body.toString(),
        redirect: 'manual',
      })
      await expectHtmlPage(response, 400)
    })
  }
})

/**
 * Spellings that are themselves in the exact form http://127.0.0.1:<port>/<path>: other
 * callbacks on the same loopback address, which a tool may register for itself.
 */
const OTHER_LOOPBACK_CALLBACKS = new Set([
  `http://127.0.0.1:${P}/cb@evil.example`,
  'http://127.0.0.1:1/cb@evil.example',
  `http://127.0.0.1:${P}/%63b`,
  `http://127.0.0.1:${P}/cb/`,
  `http://127.0.0.1:${P}/CB`,
])

describe('RFC 7591 §2, RFC 8252 §7.3: registration refuses the same spellings', () => {
  it('accepts only those already written as http://127.0.0.1:<port>/<path>, whose host is 127.0.0.1', async () => {
    for (const uri of OTHER_LOOPBACK_CALLBACKS) {
      const response = await server.fetch('/api/oauth/register', jsonInit({ redirect_uris: [uri] }))
      expect(response.status, uri).toBe(201)
      expect(new URL(uri).hostname).toBe('127.0.0.1')
    }
  })

  it('stores none of the others: each is 400 invalid_redirect_uri (or invalid_client_metadata)', async () => {
    const before = await snapshot(server, ['clients'])
    for (const [what, uri] of SPELLINGS) {
      if (OTHER_LOOPBACK_CALLBACKS.has(uri)) continue
      const response = await server.fetch('/api/oauth/register', jsonInit({ redirect_uris: [uri] }))
      const body = await expectOAuthError(response, 400)
      expect(['invalid_redirect_uri', 'invalid_client_metadata'], what).toContain(body.error)
    }
    expect(await snapshot(server, ['clients'])).toEqual(before)
  })
})

/** Pieces of a URI, each either the registered one's or a confusing variant. */
const uriPieces = fc.record({
  scheme: fc.constantFrom('http://', 'HTTP://', 'https://', 'http:/', 'http:\\\\', '//', ''),
  userinfo: fc.constantFrom('', '', 'evil.example@', 'a:b@', '127.0.0.1@'),
  host: fc.constantFrom(
    '127.0.0.1',
    '127.0.0.1',
    '127.1',
    '2130706433',
    '0x7f000001',
    'localhost',
    '[::1]',
    '127.0.0.1.',
    'evil.example',
    '127.0.0.1.evil.example',
  ),
  port: fc.oneof(
    fc.constant(`:${P}`),
    fc.integer({ min: 0, max: 70_000 }).map((n) => `:${n}`),
    fc.constantFrom('', ':', ':0', `:0${P}`, ':80', ':65535'),
  ),
  path: fc.constantFrom(
    '/cb',
    '/cb',
    '/CB',
    '/cb/',
    '//cb',
    '/./cb',
    '/x/../cb',
    '/%63b',
    '\\cb',
    '/cb@evil.example',
    '',
  ),
  suffix: fc.constantFrom('', '', '?', '?x=1', '#', '#f', ' ', '\t', '%00', '/..', ';'),
})

/** A random edit of the registered URI: insert, delete or replace one character. */
const mutation = fc
  .record({
    at: fc.nat({ max: REGISTERED.length }),
    kind: fc.constantFrom('insert', 'delete', 'replace'),
    char: fc.oneof(
      fc.constantFrom('/', '\\', '.', '@', ':', '%', '#', '?', ' ', '\t', '0', '1', 'A', '\u0000'),
      fc.string({ minLength: 1, maxLength: 1, unit: 'binary' }),
    ),
  })
  .map(({ at, kind, char }) => {
    if (kind === 'insert') return REGISTERED.slice(0, at) + char + REGISTERED.slice(at)
    if (kind === 'delete') return REGISTERED.slice(0, at) + REGISTERED.slice(at + 1)
    return REGISTERED.slice(0, at) + char + REGISTERED.slice(at + 1)
  })

/** The only URIs that may ever be redirected to: the registered one on any valid port. */
const REDIRECTABLE = /^http:\/\/127\.0\.0\.1:([1-9][0-9]{0,4})\/cb$/

describe('property: nothing is ever redirected to a URI that was not registered', () => {
  it('random spellings and one-character edits of the registered URI (fast-check, fixed seed)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          uriPieces.map((p) => `${p.scheme}${p.userinfo}${p.host}${p.port}${p.path}${p.suffix}`),
          mutation,
        ),
        async (uri) => {
          // PKCE left out: a URI that is accepted gets an error redirect straight away.
          const search = params(uri)
          search.delete('code_challenge')
          const response = await authorizeGet(search)
          const location = response.headers.get('location')
          const registered = REDIRECTABLE.exec(uri)
          if (registered && Number(registered[1]) <= 65535) {
            expect(response.status).toBe(303)
            const url = new URL(location ?? '')
            // The URL parser drops a default port (80), nothing else.
            expect(`${url.origin}${url.pathname}`).toBe(`${new URL(uri).origin}/cb`)
            expect(url.hostname).toBe('127.0.0.1')
            expect(url.searchParams.get('error')).toBe('invalid_request')
          } else {
            expect(location).toBeNull()
            expect(response.status).toBe(400)
            expect(response.headers.get('content-type')).toMatch(/^text\/html/)
          }
        },
      ),
      { numRuns: 150, seed: 20_250_610 },
    )
  })
})
