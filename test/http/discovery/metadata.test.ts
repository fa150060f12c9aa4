import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Json, readJson } from '../../support/http.js'
import { startTestServer, type TestServer } from '../../support/server.js'

/** SPEC.md section 5, written out by hand: openid profile email, then the resource table. */
const SPEC_SCOPES = [
  'openid',
  'profile',
  'email',
  'courses:read',
  'courses:write',
  'students:read',
  'students:write',
  'members:read',
  'members:write',
  'analytics:read',
  'curriculum:read',
  'curriculum:write',
  'orders:read',
  'school:read',
  'school:write',
  'appearance:read',
  'appearance:write',
  'events:read',
  'events:write',
  'membership_plans:read',
  'membership_plans:write',
  'coupons:read',
  'coupons:write',
  'posts:read',
  'posts:write',
  'subscriptions:read',
  'subscriptions:write',
  'digital_products:read',
  'digital_products:write',
  'comments:read',
  'lecturers:read',
  'lecturers:write',
  'storage:write',
  'forms:read',
  'pages:read',
  'pages:write',
  'account:read',
  'account:write',
]

/** SPEC.md section 4: where each OAuth endpoint lives, when it is advertised. */
const SPEC_PATHS: Record<string, string> = {
  registration_endpoint: '/api/oauth/register',
  authorization_endpoint: '/oauth/authorize',
  token_endpoint: '/api/oauth/token',
  userinfo_endpoint: '/api/oauth/userinfo',
  revocation_endpoint: '/api/oauth/revoke',
}

const POST_ONLY = [
  'registration_endpoint',
  'token_endpoint',
  'revocation_endpoint',
  'introspection_endpoint',
]

let server: TestServer
let as: Json
let oidc: Json
let prm: Json
beforeAll(async () => {
  server = await startTestServer()
  const read = async (path: string) => readJson(await server.fetch(path))
  as = await read('/.well-known/oauth-authorization-server')
  oidc = await read('/.well-known/openid-configuration')
  prm = await read('/.well-known/oauth-protected-resource')
})
afterAll(async () => {
  await server?.close()
})

/** The path of an absolute URL under the issuer; fails when it points elsewhere. */
function pathOf(url: unknown): string {
  expect(url).toEqual(expect.any(String))
  expect((url as string).startsWith(`${server.issuer}/`), String(url)).toBe(true)
  return (url as string).slice(server.issuer.length)
}

async function answers(path: string, method: string): Promise<number> {
  const response = await server.fetch(path, {
    method,
    ...(method === 'POST' && {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
    }),
  })
  await response.arrayBuffer()
  return response.status
}

describe('the issuer string is byte-identical everywhere', () => {
  it('in both metadata documents and in authorization_servers', () => {
    expect(as.issuer).toBe(server.issuer)
    expect(oidc.issuer).toBe(server.issuer)
    expect(prm.authorization_servers).toEqual([server.issuer])
    expect(server.issuer.endsWith('/')).toBe(false)
  })

  it('also as the prefix of every advertised URL', () => {
    for (const [key, value] of Object.entries({ ...as, ...oidc })) {
      if (key.endsWith('_endpoint') || key === 'jwks_uri' || key === 'service_documentation') {
        pathOf(value)
      }
    }
  })

  it('whatever Host or X-Forwarded-Host the request carries', async () => {
    const spoofed: Array<Record<string, string>> = [
      { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' },
      { forwarded: 'host=evil.example;proto=https' },
    ]
    for (const headers of spoofed) {
      for (const path of [
        '/.well-known/oauth-authorization-server',
        '/.well-known/oauth-protected-resource',
      ]) {
        const text = await (await server.fetch(path, { headers })).text()
        expect(text).not.toContain('evil.example')
      }
    }
  })
})

describe('every advertised endpoint answers', () => {
  it('advertises registration_endpoint and jwks_uri', () => {
    expect(as.registration_endpoint).toBe(`${server.issuer}/api/oauth/register`)
    expect(as.jwks_uri).toEqual(expect.any(String))
    expect(oidc.registration_endpoint).toBe(as.registration_endpoint)
    expect(oidc.jwks_uri).toBe(as.jwks_uri)
  })

  it('places each SPEC endpoint at the SPEC path', () => {
    for (const [key, path] of Object.entries(SPEC_PATHS)) {
      if (as[key] !== undefined) expect(as[key], key).toBe(`${server.issuer}${path}`)
    }
  })

  it('answers every *_endpoint and jwks_uri of both documents (never 404)', async () => {
    const keys = new Set(
      [...Object.keys(as), ...Object.keys(oidc)].filter(
        (k) => k.endsWith('_endpoint') || k === 'jwks_uri',
      ),
    )
    expect(keys.size).toBeGreaterThanOrEqual(2)
    for (const key of keys) {
      const path = pathOf(oidc[key] ?? as[key])
      if (POST_ONLY.includes(key)) {
        expect(await answers(path, 'POST'), `POST ${key}`).not.toBe(404)
        const preflight = await server.fetch(path, {
          method: 'OPTIONS',
          headers: { origin: 'https://x.example', 'access-control-request-method': 'POST' },
        })
        expect(preflight.status, `OPTIONS ${key}`).toBeLessThan(300)
      } else {
        expect(await answers(path, 'GET'), `GET ${key}`).not.toBe(404)
      }
    }
  })

  it('serves the documentation it names', async () => {
    for (const url of [
      as.service_documentation,
      oidc.service_documentation,
      prm.resource_documentation,
    ]) {
      const response = await server.fetch(pathOf(url))
      expect(response.status).toBe(200)
      expect(response.headers.get('content-type')).toMatch(/^text\/html/)
    }
  })
})

describe('what the documents advertise', () => {
  it('scopes_supported is exactly the SPEC section 5 catalogue, no more, no less', () => {
    for (const doc of [as, oidc, prm]) {
      expect(new Set(doc.scopes_supported).size).toBe(doc.scopes_supported.length)
      expect([...doc.scopes_supported].sort()).toEqual([...SPEC_SCOPES].sort())
    }
  })

  it('advertises the flow details only with the endpoints that implement them', () => {
    if (as.authorization_endpoint) {
      expect(as.response_types_supported).toEqual(['code'])
      expect(as.code_challenge_methods_supported).toEqual(['S256'])
      expect(as.authorization_response_iss_parameter_supported).toBe(true)
    } else {
      expect(as.code_challenge_methods_supported).toBeUndefined()
    }
    if (as.token_endpoint) {
      expect(as.grant_types_supported).toEqual(['authorization_code', 'refresh_token'])
      expect(as.token_endpoint_auth_methods_supported).toEqual(['none', 'client_secret_post'])
    } else {
      expect(as.grant_types_supported).toBeUndefined()
    }
  })

  it('makes the OpenID configuration the RFC 8414 document, OpenID fields included', () => {
    expect(oidc).toEqual(as)
    expect(oidc.id_token_signing_alg_values_supported).toContain('RS256')
    expect(oidc.id_token_signing_alg_values_supported).not.toContain('none')
    expect(oidc.subject_types_supported).toEqual(expect.arrayContaining(['public']))
    expect(oidc.claims_supported).toEqual(expect.arrayContaining(['sub', 'iss']))
  })

  it('describes the protected resource (RFC 9728)', () => {
    expect(prm.resource).toEqual(expect.any(String))
    expect(prm.resource.startsWith(server.issuer)).toBe(true)
    expect(prm.bearer_methods_supported).toEqual(['header'])
    expect(prm.resource_documentation).toEqual(expect.any(String))
  })

  it('has no null values', () => {
    for (const doc of [as, oidc, prm]) {
      expect(JSON.stringify(doc)).not.toMatch(/:null\b/)
    }
  })
})

describe('no agent-auth extension', () => {
  const FORBIDDEN =
    /agent[_-]?auth|id[_-]?jag|jwt-bearer|token-exchange|client_credentials|identity[_-]assertion/i

  it('appears in no discovery document, the JWKS, the OpenAPI document or the documentation', async () => {
    for (const path of [
      '/.well-known/oauth-authorization-server',
      '/.well-known/openid-configuration',
      '/.well-known/oauth-protected-resource',
      '/.well-known/jwks.json',
      '/openapi.json',
      '/docs',
    ]) {
      const text = await (await server.fetch(path)).text()
      expect(text, path).not.toMatch(FORBIDDEN)
    }
    expect(as).not.toHaveProperty('agent_auth')
    expect(oidc).not.toHaveProperty('agent_auth')
  })

  it.each([
    ['GET', '/agent/anything'],
    ['POST', '/agent/anything'],
    ['GET', '/agent/register'],
    ['POST', '/agent/token'],
    ['GET', '/agent'],
    ['GET', '/.well-known/agent-configuration'],
  ])('%s %s answers 404', async (method, path) => {
    const response = await server.fetch(path, { method })
    expect(response.status).toBe(404)
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/)
  })
})

describe('caching and content types', () => {
  it.each([
    '/.well-known/oauth-authorization-server',
    '/.well-known/openid-configuration',
    '/.well-known/oauth-protected-resource',
    '/.well-known/jwks.json',
    '/openapi.json',
  ])('%s is JSON with a Cache-Control that allows brief caching', async (path) => {
    const response = await server.fetch(path)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/^application\/(jwk-set\+)?json/)
    const cacheControl = response.headers.get('cache-control') ?? ''
    expect(cacheControl).toMatch(/max-age=\d+/)
    expect(cacheControl).not.toMatch(/private|no-store/)
  })
})

describe('the JWKS publishes the public signing keys', () => {
  it('has an RS256 and an ES256 key, public halves only, with unique kids', async () => {
    const jwks = await readJson(await server.fetch(pathOf(as.jwks_uri)))
    const keys = jwks.keys as Json[]
    expect(keys.map((k) => k.alg).sort()).toEqual(expect.arrayContaining(['ES256', 'RS256']))
    expect(new Set(keys.map((k) => k.kid)).size).toBe(keys.length)
    for (const key of keys) {
      expect(key.use).toBe('sig')
      expect(key.kid).toEqual(expect.any(String))
      for (const member of ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k'])
        expect(key).not.toHaveProperty(member)
      if (key.alg === 'RS256') expect(key).toMatchObject({ kty: 'RSA', e: 'AQAB' })
      if (key.alg === 'ES256') expect(key).toMatchObject({ kty: 'EC', crv: 'P-256' })
    }
  })
})
