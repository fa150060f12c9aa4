import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestClock, getUserinfo, postToken, refreshFields } from '../../support/grants.js'
import { readJson } from '../../support/http.js'
import { startTestServer, type TestServer } from '../../support/server.js'
import {
  ACCOUNT,
  callApi,
  expectBearerFailure,
  introspect,
  issue,
  issueThroughConsent,
  postIntrospect,
  registerResourceServer,
  revoke,
} from '../../support/token-lifecycle.js'

const clock = createTestClock()
let server: TestServer
let teamApi: Awaited<ReturnType<typeof registerResourceServer>>
let otherApi: Awaited<ReturnType<typeof registerResourceServer>>
beforeAll(async () => {
  server = await startTestServer({ clock })
  teamApi = await registerResourceServer(server, 'https://api.team.example/v2', 'Team API')
  otherApi = await registerResourceServer(server, 'https://other.team.example', 'Other API')
})
afterAll(async () => {
  await server?.close()
})

const INACTIVE = '{"active":false}'

async function introspectRaw(
  caller: { clientId: string; clientSecret?: string },
  token: string,
): Promise<string> {
  const response = await postIntrospect(server, caller, token)
  expect(response.status).toBe(200)
  return response.text()
}

describe('RFC 8707: a registered resource server is a valid resource', () => {
  it('is accepted at authorize and token, and the token carries it as its audience', async () => {
    const issued = await issueThroughConsent(server, {
      resource: teamApi.identifier,
      scope: 'openid courses:read',
    })
    const body = await introspect(server, issued.client, issued.accessToken)
    expect(body).toMatchObject({
      active: true,
      aud: teamApi.identifier,
      scope: 'openid courses:read',
    })
  })

  it('the registered identifier with a trailing slash names the same resource', async () => {
    const issued = await issueThroughConsent(server, {
      resource: `${teamApi.identifier}/`,
      scope: 'courses:read',
    })
    expect((await introspect(server, teamApi, issued.accessToken)).aud).toBe(teamApi.identifier)
  })

  it('refuses an unregistered resource at authorize with invalid_target', async () => {
    const unregistered = await issueThroughConsent(server, {
      resource: 'https://unregistered.example',
    }).catch((error: Error) => error)
    expect(unregistered).toBeInstanceOf(Error)
    expect(String(unregistered)).toMatch(/invalid_target/)
  })

  it('keeps the audience at refresh, and refuses a different registered resource there', async () => {
    const issued = await issue(server, { resource: teamApi.identifier, scope: 'courses:read' })
    const wrong = await postToken(
      server,
      refreshFields(issued.client, issued.refreshToken, { resource: otherApi.identifier }),
    )
    expect(wrong.status).toBe(400)
    expect((await readJson(wrong)).error).toBe('invalid_target')
    const right = await postToken(
      server,
      refreshFields(issued.client, issued.refreshToken, { resource: teamApi.identifier }),
    )
    expect(right.status).toBe(200)
    const { access_token } = await readJson(right)
    expect((await introspect(server, teamApi, access_token)).aud).toBe(teamApi.identifier)
  })
})

describe('RFC 8707 / RFC 6750 §3.1: a token for another resource is refused by Portico’s own API', () => {
  it('/api/v1/account answers 401 invalid_token', async () => {
    const issued = await issueThroughConsent(server, {
      resource: teamApi.identifier,
      scope: 'openid account:read',
    })
    await expectBearerFailure(
      server,
      await callApi(server, ACCOUNT, { token: issued.accessToken }),
      {
        status: 401,
        error: 'invalid_token',
      },
    )
    await expectBearerFailure(
      server,
      await callApi(server, '/api/v1', { token: issued.accessToken }),
      {
        status: 401,
        error: 'invalid_token',
      },
    )
  })

  it('userinfo answers 401 invalid_token', async () => {
    const issued = await issue(server, { resource: teamApi.identifier, scope: 'openid profile' })
    const response = await getUserinfo(server, issued.accessToken)
    expect(response.status).toBe(401)
    expect(response.headers.get('www-authenticate')).toMatch(/error="invalid_token"/)
  })
})

describe('RFC 7662 §2.1: a resource server introspects tokens issued for its audience', () => {
  it('sees its own tokens as active, with every field', async () => {
    const issued = await issue(server, {
      resource: teamApi.identifier,
      scope: 'openid courses:read',
    })
    const body = await introspect(server, teamApi, issued.accessToken)
    expect(body).toEqual({
      active: true,
      scope: 'openid courses:read',
      client_id: issued.client.clientId,
      username: issued.person.email,
      sub: issued.person.user.id,
      aud: teamApi.identifier,
      iss: server.issuer,
      exp: expect.any(Number),
      iat: expect.any(Number),
      token_type: 'Bearer',
    })
    expect(body.exp - body.iat).toBe(server.deps.config.lifetimes.accessToken)
  })

  it('gets {"active":false} for tokens of Portico’s own API', async () => {
    const issued = await issueThroughConsent(server, { scope: 'openid account:read' })
    expect(await introspectRaw(teamApi, issued.accessToken)).toBe(INACTIVE)
    expect(await introspectRaw(teamApi, issued.refreshToken)).toBe(INACTIVE)
  })

  it('gets {"active":false} for tokens of another registered resource server', async () => {
    const issued = await issue(server, { resource: otherApi.identifier, scope: 'courses:read' })
    expect(await introspectRaw(teamApi, issued.accessToken)).toBe(INACTIVE)
    expect((await introspect(server, otherApi, issued.accessToken)).active).toBe(true)
  })

  it('gets {"active":false} once its token is revoked or expired', async () => {
    const revoked = await issue(server, { resource: teamApi.identifier, scope: 'courses:read' })
    expect((await revoke(server, revoked.client, revoked.accessToken)).status).toBe(200)
    expect(await introspectRaw(teamApi, revoked.accessToken)).toBe(INACTIVE)

    const expiring = await issue(server, { resource: teamApi.identifier, scope: 'courses:read' })
    expect((await introspect(server, teamApi, expiring.accessToken)).active).toBe(true)
    clock.advance(server.deps.config.lifetimes.accessToken * 1000 + 1000)
    expect(await introspectRaw(teamApi, expiring.accessToken)).toBe(INACTIVE)
  })

  it('the client that holds the token may still introspect it as well', async () => {
    const issued = await issue(server, { resource: teamApi.identifier, scope: 'courses:read' })
    expect((await introspect(server, issued.client, issued.accessToken)).aud).toBe(
      teamApi.identifier,
    )
  })
})

describe('RFC 7662 §2.1: resource server authentication', () => {
  it('a wrong secret, a missing secret or an unknown id is 401 invalid_client', async () => {
    const issued = await issue(server, { resource: teamApi.identifier, scope: 'courses:read' })
    for (const caller of [
      { clientId: teamApi.clientId, clientSecret: 'prs_wrong' },
      { clientId: teamApi.clientId, clientSecret: otherApi.clientSecret },
      { clientId: teamApi.clientId },
      { clientId: 'rs_unknown', clientSecret: teamApi.clientSecret },
    ]) {
      const response = await postIntrospect(server, caller, issued.accessToken)
      expect(response.status).toBe(401)
      expect((await readJson(response)).error).toBe('invalid_client')
    }
  })

  it('its credentials are not a client’s: they cannot revoke or get tokens', async () => {
    const issued = await issue(server, { resource: teamApi.identifier, scope: 'courses:read' })
    const revoked = await revoke(server, teamApi, issued.accessToken)
    expect(revoked.status).toBe(401)
    expect((await readJson(revoked)).error).toBe('invalid_client')
    expect((await introspect(server, teamApi, issued.accessToken)).active).toBe(true)
  })

  it('a deleted resource server can no longer introspect, nor be asked for at authorize', async () => {
    const gone = await registerResourceServer(server, 'https://gone.team.example', 'Gone')
    const issued = await issue(server, { resource: gone.identifier, scope: 'courses:read' })
    expect((await introspect(server, gone, issued.accessToken)).active).toBe(true)
    expect(await server.deps.resourceServers.delete(gone.clientId)).toBe(true)
    const response = await postIntrospect(server, gone, issued.accessToken)
    expect(response.status).toBe(401)
    const refused = await issueThroughConsent(server, { resource: gone.identifier }).catch(
      (error: Error) => error,
    )
    expect(String(refused)).toMatch(/invalid_target/)
  })
})
