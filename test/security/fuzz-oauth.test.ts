import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPkce } from '../support/flow.js'
import { mintCode } from '../support/grants.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { type Issued, issue, registerResourceServer } from '../support/token-lifecycle.js'
import {
  contentType,
  expectCleanLogs,
  expectNoSecret,
  FUZZ,
  formBody,
  formFields,
  nasty,
  send,
} from './fuzz-support.js'
import { expectHtmlPage, expectOAuthError, rowCounts, STATE_TABLES, snapshot } from './support.js'

/**
 * Property-based fuzzing (fast-check, fixed seed) of the OAuth endpoints: registration,
 * authorization, token, revocation and introspection. Invariants for every input: no 5xx;
 * errors in the endpoint's format (RFC 6749 §5.2 JSON, or an HTML page at /oauth/authorize);
 * a refused request changes nothing in the database; and no secret — client secret, token,
 * code, resource-server secret — appears in a response body or in any log line.
 */

let server: TestServer
let issued: Issued
let confidential: Issued
let rsSecret: string
let rsId: string
let code: string
let verifier: string
let secrets: string[]

beforeAll(async () => {
  server = await startTestServer()
  issued = await issue(server)
  confidential = await issue(server, {
    metadata: { token_endpoint_auth_method: 'client_secret_post' },
  })
  const rs = await registerResourceServer(server, 'https://api.fuzz.example')
  rsId = rs.clientId
  rsSecret = rs.clientSecret ?? ''
  const minted = await mintCode(server, confidential.client, confidential.person.user)
  code = minted.code
  verifier = minted.verifier
  secrets = [
    confidential.client.clientSecret ?? '',
    issued.accessToken,
    issued.refreshToken,
    confidential.accessToken,
    confidential.refreshToken,
    code,
    rsSecret,
    issued.person.password,
  ]
})
afterAll(async () => {
  await server?.close()
})

describe('fuzz: POST /api/oauth/register (RFC 7591 §3.2)', () => {
  const metadataKeys = [
    'redirect_uris',
    'client_name',
    'token_endpoint_auth_method',
    'application_type',
    'grant_types',
    'response_types',
    'scope',
    'id_token_signed_response_alg',
  ]
  const value = fc.oneof(
    fc.jsonValue({ maxDepth: 3 }),
    nasty(),
    fc.array(nasty(['http://127.0.0.1:8080/cb', 'authorization_code', 'code']), { maxLength: 4 }),
  )
  const body = fc.oneof(
    {
      weight: 4,
      arbitrary: fc
        .dictionary(fc.oneof(fc.constantFrom(...metadataKeys), fc.string()), value)
        .map((o) => JSON.stringify(o)),
    },
    { weight: 1, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: fc.string({ maxLength: 80 }) },
  )

  it('answers 201 or an OAuth error; a refused registration stores nothing', async () => {
    await fc.assert(
      fc.asyncProperty(body, contentType('application/json'), async (text, type) => {
        const before = await snapshot(server, ['clients'])
        const response = await send(server, '/api/oauth/register', 'POST', type, text)
        if (response.status === 201) {
          const created = (await response.json()) as { client_id: string }
          expect(created.client_id).toMatch(/^pci_/)
          expect((await snapshot(server, ['clients'])).clients.length).toBe(
            before.clients.length + 1,
          )
          return
        }
        expect([400, 413, 415]).toContain(response.status)
        await expectOAuthError(response)
        expect(await snapshot(server, ['clients'])).toEqual(before)
      }),
      FUZZ,
    )
  })
})

describe('fuzz: GET /oauth/authorize (RFC 6749 §4.1.1, §4.1.2.1)', () => {
  const names = [
    'response_type',
    'client_id',
    'redirect_uri',
    'scope',
    'state',
    'code_challenge',
    'code_challenge_method',
    'nonce',
    'resource',
    'prompt',
    'max_age',
    'login_hint',
    'response_mode',
    'request',
    'request_uri',
  ]
  const valid = () => ({
    response_type: 'code',
    client_id: issued.client.clientId,
    redirect_uri: issued.client.redirectUri,
    scope: 'openid',
    code_challenge: createPkce().challenge,
    code_challenge_method: 'S256',
  })

  it('answers a page (no Location) or a redirect to the login page or the registered URI only', async () => {
    const values = () =>
      nasty([
        issued.client.clientId,
        issued.client.redirectUri,
        'code',
        'openid profile',
        'none',
        'login',
      ])
    await fc.assert(
      fc.asyncProperty(
        fc.subarray(Object.keys(valid())),
        formFields(names, values()),
        async (kept, extra) => {
          const search = new URLSearchParams()
          const base = valid() as Record<string, string>
          for (const name of kept) search.append(name, base[name] ?? '')
          for (const [k, v] of extra) search.append(k, v)
          const before = await rowCounts(server)
          const response = await server.fetch(`/oauth/authorize?${search}`, { redirect: 'manual' })
          expect(response.status).toBeLessThan(500)
          expectNoSecret(await response.clone().text(), secrets, 'authorize')
          const location = response.headers.get('location')
          const after = await rowCounts(server)
          if (location === null) {
            await expectHtmlPage(response)
            expect(after).toEqual(before)
          } else if (location.startsWith('/login?request=par_')) {
            expect(after.authorization_requests).toBe(before.authorization_requests + 1)
          } else {
            const url = new URL(location)
            expect(`${url.origin}${url.pathname}`).toBe(issued.client.redirectUri)
            expect(url.searchParams.get('iss')).toBe(server.issuer)
            expect(url.searchParams.get('error')).toMatch(/^[a-z_]+$/)
            expect(url.searchParams.get('code')).toBeNull()
            expect(after).toEqual(before)
          }
        },
      ),
      FUZZ,
    )
  })
})

describe('fuzz: POST /api/oauth/token (RFC 6749 §3.2, §5.2)', () => {
  it('answers tokens or an OAuth error; a refused request issues nothing', async () => {
    const names = [
      'grant_type',
      'client_id',
      'client_secret',
      'code',
      'redirect_uri',
      'code_verifier',
      'refresh_token',
      'scope',
      'resource',
    ]
    const values = nasty([
      'authorization_code',
      'refresh_token',
      confidential.client.clientId,
      confidential.client.clientSecret ?? '',
      issued.client.clientId,
      confidential.client.redirectUri,
      code,
      verifier,
      issued.refreshToken,
      confidential.refreshToken,
      issued.accessToken,
      'openid',
      server.issuer,
    ])
    await fc.assert(
      fc.asyncProperty(
        formFields(names, values),
        contentType('application/x-www-form-urlencoded'),
        async (fields, type) => {
          const before = await snapshot(server, [
            'clients',
            'users',
            'access_tokens',
            'refresh_tokens',
          ])
          const response = await send(server, '/api/oauth/token', 'POST', type, formBody(fields))
          const after = await snapshot(server, [
            'clients',
            'users',
            'access_tokens',
            'refresh_tokens',
          ])
          expect(after.clients).toEqual(before.clients)
          expect(after.users).toEqual(before.users)
          if (response.status === 200) {
            const body = (await response.json()) as Record<string, unknown>
            expect(body.token_type).toBe('Bearer')
            expectNoSecret(JSON.stringify(body), secrets, 'token response')
            return
          }
          const text = await response.clone().text()
          await expectOAuthError(response)
          expectNoSecret(text, secrets, 'token error')
          // Refused: nothing issued (a replayed code or refresh token may revoke: fewer rows).
          expect(after.access_tokens.length).toBeLessThanOrEqual(before.access_tokens.length)
          expect(after.refresh_tokens.length).toBeLessThanOrEqual(before.refresh_tokens.length)
        },
      ),
      FUZZ,
    )
  })
})

describe('fuzz: POST /api/oauth/revoke and /api/oauth/introspect (RFC 7009, RFC 7662)', () => {
  const names = ['client_id', 'client_secret', 'token', 'token_type_hint']
  const values = () =>
    nasty([
      issued.client.clientId,
      confidential.client.clientId,
      confidential.client.clientSecret ?? '',
      rsId,
      rsSecret,
      'access_token',
      'refresh_token',
      issued.accessToken,
      confidential.accessToken,
    ])

  it('introspection: {"active":false}, an active description, or an OAuth error; nothing changes', async () => {
    await fc.assert(
      fc.asyncProperty(
        formFields(names, values()),
        contentType('application/x-www-form-urlencoded'),
        async (fields, type) => {
          const before = await snapshot(server)
          const response = await send(
            server,
            '/api/oauth/introspect',
            'POST',
            type,
            formBody(fields),
          )
          expect(await snapshot(server)).toEqual(before)
          const text = await response.clone().text()
          expectNoSecret(text, secrets, 'introspection')
          if (response.status !== 200) {
            await expectOAuthError(response)
            return
          }
          const body = JSON.parse(text) as Record<string, unknown>
          if (body.active === false) expect(body).toEqual({ active: false })
          else expect(body.active).toBe(true)
        },
      ),
      FUZZ,
    )
  })

  it('revocation: 200 with an empty body or an OAuth error; nothing is ever inserted', async () => {
    await fc.assert(
      fc.asyncProperty(
        formFields(names, values()),
        contentType('application/x-www-form-urlencoded'),
        async (fields, type) => {
          const before = await rowCounts(server)
          const response = await send(server, '/api/oauth/revoke', 'POST', type, formBody(fields))
          const after = await rowCounts(server)
          for (const table of STATE_TABLES) {
            expect(after[table], table).toBeLessThanOrEqual(before[table])
          }
          if (response.status === 200) {
            expect(await response.text()).toBe('')
            return
          }
          const text = await response.clone().text()
          expectNoSecret(text, secrets, 'revocation')
          await expectOAuthError(response)
          expect(after).toEqual(before)
        },
      ),
      FUZZ,
    )
  })
})

describe('after fuzzing the OAuth endpoints', () => {
  it('logged no unexpected error and no secret', () => {
    expectCleanLogs(server, secrets)
  })
})
