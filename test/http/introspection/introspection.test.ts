import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestClock, postToken, refreshFields } from '../../support/grants.js'
import { jsonInit, readJson } from '../../support/http.js'
import { startTestServer, type TestServer } from '../../support/server.js'
import {
  INTROSPECT,
  introspect,
  issue,
  issueThroughConsent,
  postIntrospect,
  revoke,
} from '../../support/token-lifecycle.js'

const clock = createTestClock()
let server: TestServer
beforeAll(async () => {
  server = await startTestServer({ clock })
})
afterAll(async () => {
  await server?.close()
})

const ACTIVE_FIELDS = [
  'active',
  'aud',
  'client_id',
  'exp',
  'iat',
  'iss',
  'scope',
  'sub',
  'token_type',
  'username',
]

/** RFC 7662 §2.2: anything not active is exactly {"active": false}, nothing more. */
async function expectInactive(
  caller: { clientId: string; clientSecret?: string },
  token: string,
  extra: Record<string, string> = {},
): Promise<void> {
  const response = await postIntrospect(server, caller, token, extra)
  expect(response.status).toBe(200)
  expect(response.headers.get('cache-control')).toBe('no-store')
  expect(await response.text()).toBe('{"active":false}')
}

async function expectInvalidClient(response: Response): Promise<void> {
  expect(response.status).toBe(401)
  const body = await readJson(response)
  expect(body.error).toBe('invalid_client')
  expect(body.active).toBeUndefined()
}

describe('RFC 7662 §2.2: an active access token', () => {
  it('answers exactly active, scope, client_id, username, sub, aud, iss, exp, iat, token_type', async () => {
    const before = Math.floor(clock.now() / 1000)
    const issued = await issueThroughConsent(server, { scope: 'openid account:read' })
    const response = await postIntrospect(server, issued.client, issued.accessToken)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/^application\/json/)
    const body = await readJson(response)
    expect(Object.keys(body).sort()).toEqual(ACTIVE_FIELDS)
    expect(body).toEqual({
      active: true,
      scope: 'openid account:read',
      client_id: issued.client.clientId,
      username: issued.person.email,
      sub: issued.person.user.id,
      aud: server.issuer,
      iss: server.issuer,
      exp: before + server.deps.config.lifetimes.accessToken,
      iat: before,
      token_type: 'Bearer',
    })
  })

  it('sends Cache-Control: no-store (RFC 7662 §4) on active and inactive answers', async () => {
    const issued = await issue(server)
    const active = await postIntrospect(server, issued.client, issued.accessToken)
    expect(active.headers.get('cache-control')).toBe('no-store')
    const inactive = await postIntrospect(server, issued.client, 'nonsense')
    expect(inactive.headers.get('cache-control')).toBe('no-store')
  })

  it('describes a refresh token as active too, with its own token_type, to its client', async () => {
    const issued = await issue(server, { scope: 'openid courses:read' })
    const body = await introspect(server, issued.client, issued.refreshToken, {
      token_type_hint: 'refresh_token',
    })
    expect(Object.keys(body).sort()).toEqual(ACTIVE_FIELDS)
    expect(body).toMatchObject({
      active: true,
      client_id: issued.client.clientId,
      sub: issued.person.user.id,
      scope: 'openid courses:read',
      aud: server.issuer,
    })
    expect(body.token_type).not.toBe('Bearer')
  })

  it('finds the token whatever token_type_hint says (the hint is only a hint)', async () => {
    const issued = await issue(server)
    const withWrongHint = await introspect(server, issued.client, issued.accessToken, {
      token_type_hint: 'refresh_token',
    })
    expect(withWrongHint.active).toBe(true)
    expect(withWrongHint.token_type).toBe('Bearer')
    const refreshWithWrongHint = await introspect(server, issued.client, issued.refreshToken, {
      token_type_hint: 'access_token',
    })
    expect(refreshWithWrongHint.active).toBe(true)
  })
})

describe('RFC 7662 §2.2: anything not active is exactly {"active":false}', () => {
  it('an expired access token', async () => {
    const issued = await issue(server)
    expect((await introspect(server, issued.client, issued.accessToken)).active).toBe(true)
    clock.advance(server.deps.config.lifetimes.accessToken * 1000)
    await expectInactive(issued.client, issued.accessToken)
    // The refresh token outlives it.
    expect((await introspect(server, issued.client, issued.refreshToken)).active).toBe(true)
  })

  it('a revoked access token', async () => {
    const issued = await issue(server)
    expect((await revoke(server, issued.client, issued.accessToken)).status).toBe(200)
    await expectInactive(issued.client, issued.accessToken)
  })

  it('every token of a grant ended by revoking its refresh token', async () => {
    const issued = await issue(server)
    expect((await revoke(server, issued.client, issued.refreshToken)).status).toBe(200)
    await expectInactive(issued.client, issued.accessToken)
    await expectInactive(issued.client, issued.refreshToken)
  })

  it('a refresh token that was rotated away', async () => {
    const issued = await issue(server)
    const rotated = await postToken(server, refreshFields(issued.client, issued.refreshToken))
    expect(rotated.status).toBe(200)
    await expectInactive(issued.client, issued.refreshToken)
    const { refresh_token } = await readJson(rotated)
    expect((await introspect(server, issued.client, refresh_token)).active).toBe(true)
  })

  it('an unknown or malformed token', async () => {
    const issued = await issue(server)
    await expectInactive(issued.client, `pat_${randomBytes(32).toString('base64url')}`)
    await expectInactive(issued.client, `prt_${randomBytes(32).toString('base64url')}`)
    await expectInactive(issued.client, 'not a token')
  })

  it('a token of a disabled person', async () => {
    const issued = await issue(server)
    await server.deps.database.db
      .updateTable('users')
      .set({ disabled_at: clock.now() })
      .where('id', '=', issued.person.user.id)
      .execute()
    await expectInactive(issued.client, issued.accessToken)
    await expectInactive(issued.client, issued.refreshToken)
  })
})

describe('RFC 7662 §2.1 and §4: who may introspect what', () => {
  it('a public client may introspect its own tokens, and another client’s are {"active":false}', async () => {
    const mine = await issue(server)
    const theirs = await issue(server)
    expect(mine.client.clientSecret).toBeUndefined()
    expect((await introspect(server, mine.client, mine.accessToken)).active).toBe(true)
    await expectInactive(mine.client, theirs.accessToken)
    await expectInactive(mine.client, theirs.refreshToken)
    // The question did not harm the token.
    expect((await introspect(server, theirs.client, theirs.accessToken)).active).toBe(true)
  })

  it('a confidential client may introspect its own tokens only', async () => {
    const confidential = { token_endpoint_auth_method: 'client_secret_post' }
    const mine = await issue(server, { metadata: confidential })
    const theirs = await issue(server, { metadata: confidential })
    expect((await introspect(server, mine.client, mine.accessToken)).active).toBe(true)
    expect((await introspect(server, mine.client, mine.refreshToken)).active).toBe(true)
    await expectInactive(mine.client, theirs.accessToken)
    await expectInactive(mine.client, theirs.refreshToken)
  })

  it('a confidential client with a wrong or missing secret gets 401 invalid_client', async () => {
    const issued = await issue(server, {
      metadata: { token_endpoint_auth_method: 'client_secret_post' },
    })
    await expectInvalidClient(
      await postIntrospect(
        server,
        { clientId: issued.client.clientId, clientSecret: 'wrong' },
        issued.accessToken,
      ),
    )
    await expectInvalidClient(
      await postIntrospect(server, { clientId: issued.client.clientId }, issued.accessToken),
    )
  })

  it('an unknown client, a public client sending a secret, or no client_id: 401 invalid_client', async () => {
    const issued = await issue(server)
    await expectInvalidClient(
      await postIntrospect(server, { clientId: 'cli_unknown' }, issued.accessToken),
    )
    await expectInvalidClient(
      await postIntrospect(
        server,
        { clientId: issued.client.clientId, clientSecret: 'x' },
        issued.accessToken,
      ),
    )
    const response = await server.fetch(INTROSPECT, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: issued.accessToken }).toString(),
    })
    await expectInvalidClient(response)
  })
})

describe('RFC 7662 §2.1: the request', () => {
  it('refuses a missing token with 400 invalid_request', async () => {
    const issued = await issue(server)
    const response = await postIntrospect(server, issued.client, undefined)
    expect(response.status).toBe(400)
    expect((await readJson(response)).error).toBe('invalid_request')
  })

  it('refuses a JSON body with 400 invalid_request', async () => {
    const issued = await issue(server)
    const response = await server.fetch(
      INTROSPECT,
      jsonInit({ token: issued.accessToken, client_id: issued.client.clientId }),
    )
    expect(response.status).toBe(400)
    const body = await readJson(response)
    expect(body.error).toBe('invalid_request')
    expect(body.active).toBeUndefined()
  })

  it('is open to any origin (CORS)', async () => {
    const issued = await issue(server)
    const response = await postIntrospect(server, issued.client, issued.accessToken)
    expect(response.status).toBe(200)
    const crossOrigin = await server.fetch(INTROSPECT, {
      method: 'POST',
      headers: {
        origin: 'https://tool.example',
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({
        token: issued.accessToken,
        client_id: issued.client.clientId,
      }).toString(),
    })
    expect(crossOrigin.headers.get('access-control-allow-origin')).toBe('*')
  })
})

describe('discovery (RFC 8414 §2)', () => {
  it('advertises introspection_endpoint, and that URL answers', async () => {
    for (const path of [
      '/.well-known/oauth-authorization-server',
      '/.well-known/openid-configuration',
    ]) {
      const metadata = await readJson(await server.fetch(path))
      expect(metadata.introspection_endpoint).toBe(`${server.issuer}${INTROSPECT}`)
      // RFC 8414 §2: without this list clients would assume client_secret_basic.
      expect([...metadata.introspection_endpoint_auth_methods_supported].sort()).toEqual([
        'client_secret_post',
        'none',
      ])
    }
    const metadata = await readJson(await server.fetch('/.well-known/oauth-authorization-server'))
    const issued = await issue(server)
    const response = await fetch(metadata.introspection_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        token: issued.accessToken,
        client_id: issued.client.clientId,
      }).toString(),
    })
    expect(response.status).toBe(200)
    expect((await readJson(response)).active).toBe(true)
  })
})
