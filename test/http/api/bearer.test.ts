import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestClock } from '../../support/grants.js'
import { readJson } from '../../support/http.js'
import { startTestServer, type TestServer } from '../../support/server.js'
import {
  ACCOUNT,
  API,
  callApi,
  expectBearerFailure,
  introspect,
  issue,
  revoke,
  setRole,
} from '../../support/token-lifecycle.js'
import { parseChallenge } from '../../support/www-authenticate.js'

const clock = createTestClock()
let server: TestServer
beforeAll(async () => {
  server = await startTestServer({ clock })
})
afterAll(async () => {
  await server?.close()
})

const invalidToken = { status: 401, error: 'invalid_token' } as const

describe('RFC 6750 §2.1: the token comes from the Authorization header only', () => {
  it('ignores access_token in the query string (RFC 6750 §2.3 is not supported): anonymous', async () => {
    const { accessToken } = await issue(server)
    const index = await readJson(await server.fetch(`${API}?access_token=${accessToken}`))
    expect(index.caller).toEqual({ kind: 'anonymous' })
    const response = await server.fetch(`${ACCOUNT}?access_token=${accessToken}`)
    await expectBearerFailure(server, response, { status: 401 })
  })

  it('ignores access_token in a form body (RFC 6750 §2.2 is not supported): anonymous', async () => {
    const { accessToken } = await issue(server)
    const response = await server.fetch(ACCOUNT, {
      method: 'PATCH',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ access_token: accessToken, name: 'Mallory' }).toString(),
    })
    await expectBearerFailure(server, response, { status: 401 })
  })

  it('uses the header when both are sent, never the query string', async () => {
    const valid = await issue(server)
    const response = await callApi(server, `${ACCOUNT}?access_token=${valid.accessToken}`, {
      token: `pat_${randomBytes(32).toString('base64url')}`,
    })
    await expectBearerFailure(server, response, invalidToken)
  })

  it('accepts the scheme name in any case and several spaces before the token', async () => {
    const { accessToken } = await issue(server)
    for (const authorization of [`bearer ${accessToken}`, `BEARER  ${accessToken}`]) {
      expect((await callApi(server, ACCOUNT, { authorization })).status).toBe(200)
    }
  })
})

describe('RFC 6750 §3.1: no Authorization header is an anonymous request', () => {
  it('GET /api/v1 answers 200 with caller.kind anonymous and no challenge', async () => {
    const response = await server.fetch(API)
    expect(response.status).toBe(200)
    expect(response.headers.get('www-authenticate')).toBeNull()
    const body = await readJson(response)
    expect(body.caller).toEqual({ kind: 'anonymous' })
    expect(body.scopes).toEqual([])
  })

  it('GET /api/v1/account answers 401 with a challenge naming only resource_metadata', async () => {
    const response = await server.fetch(ACCOUNT)
    const { challenge, body } = await expectBearerFailure(server, response, { status: 401 })
    expect(challenge.params).toEqual({
      resource_metadata: `${server.issuer}/.well-known/oauth-protected-resource`,
    })
    expect(body.code).toBe('unauthenticated')
  })

  it('the resource metadata it points to exists and names this issuer', async () => {
    const { challenge } = await expectBearerFailure(server, await server.fetch(ACCOUNT), {
      status: 401,
    })
    const metadata = await fetch(challenge.params.resource_metadata ?? '')
    expect(metadata.status).toBe(200)
    const body = await readJson(metadata)
    expect(body.resource).toBe(server.issuer)
    expect(body.authorization_servers).toContain(server.issuer)
  })
})

describe('RFC 6750 §3.1 invalid_token: a malformed header is never anonymous', () => {
  const malformed: Array<[string, (token: string) => string]> = [
    ['Basic credentials', () => `Basic ${Buffer.from('a:b').toString('base64')}`],
    ['Bearer with two tokens', (token) => `Bearer ${token} ${token}`],
    ['Bearer with no token', () => 'Bearer'],
    ['an empty header', () => ''],
    ['characters outside b64token', (token) => `Bearer ${token}!`],
    ['a token with a comma', (token) => `Bearer ${token},x`],
    ['padding in the middle', (token) => `Bearer ab=cd${token}`],
    ['a scheme glued to the token', (token) => `Bearer${token}`],
    ['a quoted token', (token) => `Bearer "${token}"`],
  ]

  for (const [name, header] of malformed) {
    it(`${name}: 401 invalid_token on /api/v1/account and on /api/v1`, async () => {
      const { accessToken } = await issue(server)
      const authorization = header(accessToken)
      for (const path of [ACCOUNT, API]) {
        const response = await callApi(server, path, { authorization })
        await expectBearerFailure(server, response, invalidToken)
      }
    })
  }
})

describe('RFC 6750 §3.1 invalid_token: unknown, expired and revoked tokens', () => {
  it('an unknown token: 401 invalid_token, also on GET /api/v1 (never downgraded)', async () => {
    const token = `pat_${randomBytes(32).toString('base64url')}`
    for (const path of [ACCOUNT, API]) {
      await expectBearerFailure(server, await callApi(server, path, { token }), invalidToken)
    }
  })

  it('a refresh token is not an access token', async () => {
    const { refreshToken } = await issue(server)
    await expectBearerFailure(
      server,
      await callApi(server, ACCOUNT, { token: refreshToken }),
      invalidToken,
    )
  })

  it('an expired token: 401 invalid_token, the description says why in plain ASCII', async () => {
    const { accessToken } = await issue(server)
    expect((await callApi(server, ACCOUNT, { token: accessToken })).status).toBe(200)
    clock.advance(server.deps.config.lifetimes.accessToken * 1000)
    for (const path of [ACCOUNT, API]) {
      const { challenge, body } = await expectBearerFailure(
        server,
        await callApi(server, path, { token: accessToken }),
        invalidToken,
      )
      expect(challenge.params.error_description).toMatch(/expired/)
      expect(body.detail).toBe(challenge.params.error_description)
    }
  })

  it('a revoked token: 401 invalid_token on the very next call', async () => {
    const issued = await issue(server)
    expect((await callApi(server, API, { token: issued.accessToken })).status).toBe(200)
    expect((await revoke(server, issued.client, issued.accessToken)).status).toBe(200)
    for (const path of [ACCOUNT, API]) {
      await expectBearerFailure(
        server,
        await callApi(server, path, { token: issued.accessToken }),
        invalidToken,
      )
    }
  })

  it('a token of a disabled person: 401 invalid_token', async () => {
    const issued = await issue(server)
    await server.deps.database.db
      .updateTable('users')
      .set({ disabled_at: clock.now() })
      .where('id', '=', issued.person.user.id)
      .execute()
    await expectBearerFailure(
      server,
      await callApi(server, ACCOUNT, { token: issued.accessToken }),
      invalidToken,
    )
  })
})

describe('RFC 6750 §3.1 insufficient_scope: a valid token without the needed scope', () => {
  it('GET /api/v1/account without account:read: 403 with scope="account:read"', async () => {
    const { accessToken } = await issue(server, { scope: 'openid courses:read' })
    const { body } = await expectBearerFailure(
      server,
      await callApi(server, ACCOUNT, { token: accessToken }),
      { status: 403, error: 'insufficient_scope', scope: 'account:read' },
    )
    expect(body.required_scopes).toEqual(['account:read'])
    // The same token is fine where nothing is required.
    expect((await callApi(server, API, { token: accessToken })).status).toBe(200)
  })

  it('PATCH /api/v1/account with account:read only: 403 with scope="account:write"', async () => {
    const { accessToken } = await issue(server, { scope: 'account:read' })
    const response = await callApi(server, ACCOUNT, {
      token: accessToken,
      init: {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Not Allowed' }),
      },
    })
    await expectBearerFailure(server, response, {
      status: 403,
      error: 'insufficient_scope',
      scope: 'account:write',
    })
  })
})

describe('anonymous vs invalid vs insufficient on the same route', () => {
  it('GET /api/v1/account: 401 bare, 401 invalid_token, 403 insufficient_scope, then 200', async () => {
    const narrow = await issue(server, { scope: 'openid' })
    const wide = await issue(server, { scope: 'openid account:read' })
    const anonymous = await expectBearerFailure(server, await server.fetch(ACCOUNT), {
      status: 401,
    })
    const invalid = await expectBearerFailure(
      server,
      await callApi(server, ACCOUNT, { token: 'pat_nope' }),
      invalidToken,
    )
    const insufficient = await expectBearerFailure(
      server,
      await callApi(server, ACCOUNT, { token: narrow.accessToken }),
      { status: 403, error: 'insufficient_scope', scope: 'account:read' },
    )
    expect(Object.keys(anonymous.challenge.params)).toEqual(['resource_metadata'])
    expect(invalid.challenge.params.error).toBe('invalid_token')
    expect(insufficient.challenge.params.error).toBe('insufficient_scope')
    expect((await callApi(server, ACCOUNT, { token: wide.accessToken })).status).toBe(200)
  })
})

describe('CORS on the API (Fetch standard): open, and WWW-Authenticate readable by scripts', () => {
  it('exposes WWW-Authenticate on 401 and 403 answers, with Access-Control-Allow-Origin: *', async () => {
    const narrow = await issue(server, { scope: 'openid' })
    const origin = { origin: 'https://tool.example' }
    const answers = [
      await server.fetch(ACCOUNT, { headers: origin }),
      await callApi(server, ACCOUNT, { token: 'pat_nope', init: { headers: origin } }),
      await callApi(server, ACCOUNT, { token: narrow.accessToken, init: { headers: origin } }),
    ]
    expect(answers.map((r) => r.status)).toEqual([401, 401, 403])
    for (const response of answers) {
      expect(response.headers.get('access-control-allow-origin')).toBe('*')
      const exposed = (response.headers.get('access-control-expose-headers') ?? '')
        .split(',')
        .map((h) => h.trim().toLowerCase())
      expect(exposed).toContain('www-authenticate')
      expect(() => parseChallenge(response.headers.get('www-authenticate'))).not.toThrow()
    }
  })

  it('answers a preflight that asks to send Authorization', async () => {
    const response = await server.fetch(ACCOUNT, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://tool.example',
        'access-control-request-method': 'PATCH',
        'access-control-request-headers': 'authorization, content-type, if-match',
      },
    })
    expect(response.status).toBeLessThan(300)
    expect(response.headers.get('access-control-allow-origin')).toBe('*')
    const allowed = (response.headers.get('access-control-allow-headers') ?? '').toLowerCase()
    for (const header of ['authorization', 'content-type', 'if-match']) {
      expect(allowed).toContain(header)
    }
    expect(response.headers.get('access-control-allow-methods')).toMatch(/PATCH/)
  })
})

describe('effective scopes = granted ∩ what the role allows today', () => {
  it('a demoted owner loses courses:read at once: /api/v1 and introspection both shrink', async () => {
    const issued = await issue(server, {
      role: 'owner',
      scope: 'openid account:read courses:read students:write',
    })
    const before = await readJson(await callApi(server, API, { token: issued.accessToken }))
    expect(before.caller).toMatchObject({ kind: 'team', role: 'owner' })
    expect([...before.scopes].sort()).toEqual(
      ['account:read', 'courses:read', 'openid', 'students:write'].sort(),
    )
    expect((await introspect(server, issued.client, issued.accessToken)).scope).toBe(
      'openid account:read courses:read students:write',
    )
    // Asked again: on SQLite the token and its caller are now the ones kept in memory.
    const again = await readJson(await callApi(server, API, { token: issued.accessToken }))
    expect(again.scopes).toEqual(before.scopes)

    await setRole(server, issued.person.user.id, 'student')

    const after = await readJson(await callApi(server, API, { token: issued.accessToken }))
    expect(after.caller).toMatchObject({ kind: 'learner', role: 'student' })
    expect([...after.scopes].sort()).toEqual(['account:read', 'openid'])
    expect(after.scopes).not.toContain('courses:read')
    const shrunk = await introspect(server, issued.client, issued.accessToken)
    expect(shrunk.active).toBe(true)
    expect(shrunk.scope).toBe('openid account:read')
    const refresh = await introspect(server, issued.client, issued.refreshToken)
    expect(refresh.scope).toBe('openid account:read')
    // What the role still allows keeps working.
    expect((await callApi(server, ACCOUNT, { token: issued.accessToken })).status).toBe(200)
  })

  it('a demoted lecturer keeps what a teaching assistant may do and loses the rest', async () => {
    const issued = await issue(server, {
      role: 'lecturer',
      scope: 'account:read curriculum:write courses:read',
    })
    await setRole(server, issued.person.user.id, 'teaching_assistant')
    const index = await readJson(await callApi(server, API, { token: issued.accessToken }))
    expect([...index.scopes].sort()).toEqual(['account:read', 'courses:read'])
  })

  it('a promotion never widens a token beyond what was granted', async () => {
    const issued = await issue(server, { role: 'student', scope: 'openid account:read' })
    await setRole(server, issued.person.user.id, 'owner')
    const index = await readJson(await callApi(server, API, { token: issued.accessToken }))
    expect([...index.scopes].sort()).toEqual(['account:read', 'openid'])
  })
})
