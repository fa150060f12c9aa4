import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { postToken, refreshFields } from '../../support/grants.js'
import { jsonInit, readJson } from '../../support/http.js'
import { startTestServer, type TestServer } from '../../support/server.js'
import {
  ACCOUNT,
  callApi,
  expectBearerFailure,
  issue,
  issueThroughConsent,
  REVOKE,
  revoke,
} from '../../support/token-lifecycle.js'

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(async () => {
  await server?.close()
})

/** RFC 7009 §2.2: the answer to a revocation request is 200 with an empty body. */
async function expectRevoked(response: Response): Promise<void> {
  expect(response.status).toBe(200)
  expect(await response.text()).toBe('')
}

async function expectOAuthError(response: Response, status: number, error: string) {
  expect(response.status).toBe(status)
  expect(response.headers.get('content-type')).toMatch(/^application\/json/)
  const body = await readJson(response)
  expect(body.error).toBe(error)
  expect(typeof body.error_description).toBe('string')
}

const account = (token: string) => callApi(server, ACCOUNT, { token })

describe('RFC 7009 §2.1: revoking an access token', () => {
  it('ends it at once: the very next API call is 401 invalid_token', async () => {
    const issued = await issueThroughConsent(server)
    expect((await account(issued.accessToken)).status).toBe(200)
    await expectRevoked(await revoke(server, issued.client, issued.accessToken))
    await expectBearerFailure(server, await account(issued.accessToken), {
      status: 401,
      error: 'invalid_token',
    })
  })

  it('ends only that access token: the refresh token still refreshes', async () => {
    const issued = await issue(server)
    await expectRevoked(
      await revoke(server, issued.client, issued.accessToken, { token_type_hint: 'access_token' }),
    )
    const refreshed = await postToken(server, refreshFields(issued.client, issued.refreshToken))
    expect(refreshed.status).toBe(200)
    const { access_token } = await readJson(refreshed)
    expect((await account(access_token)).status).toBe(200)
  })

  it('is idempotent: revoking the same token again answers 200 as well', async () => {
    const issued = await issue(server)
    await expectRevoked(await revoke(server, issued.client, issued.accessToken))
    await expectRevoked(await revoke(server, issued.client, issued.accessToken))
  })
})

describe('RFC 7009 §2.1: revoking a refresh token ends the whole grant', () => {
  it('invalidates every access token issued under it and the refresh token itself', async () => {
    const issued = await issue(server)
    const refreshed = await readJson(
      await postToken(server, refreshFields(issued.client, issued.refreshToken)),
    )
    expect((await account(issued.accessToken)).status).toBe(200)
    expect((await account(refreshed.access_token)).status).toBe(200)

    await expectRevoked(
      await revoke(server, issued.client, refreshed.refresh_token, {
        token_type_hint: 'refresh_token',
      }),
    )
    for (const token of [issued.accessToken, refreshed.access_token]) {
      await expectBearerFailure(server, await account(token), {
        status: 401,
        error: 'invalid_token',
      })
    }
    const again = await postToken(server, refreshFields(issued.client, refreshed.refresh_token))
    await expectOAuthError(again, 400, 'invalid_grant')
    const grant = await server.deps.grants.findGrant(issued.grantId)
    expect(grant?.revoked_at).not.toBeNull()
  })

  it('works for a confidential client that authenticates with its secret', async () => {
    const issued = await issue(server, {
      metadata: { token_endpoint_auth_method: 'client_secret_post' },
    })
    expect(issued.client.clientSecret).toBeTruthy()
    await expectRevoked(await revoke(server, issued.client, issued.refreshToken))
    expect((await account(issued.accessToken)).status).toBe(401)
  })
})

describe('RFC 7009 §2.1: token_type_hint only orders the look-ups', () => {
  it('still revokes an access token sent with token_type_hint=refresh_token', async () => {
    const issued = await issue(server)
    await expectRevoked(
      await revoke(server, issued.client, issued.accessToken, { token_type_hint: 'refresh_token' }),
    )
    expect((await account(issued.accessToken)).status).toBe(401)
    // Only the access token ended: the grant lives on.
    expect(
      (await postToken(server, refreshFields(issued.client, issued.refreshToken))).status,
    ).toBe(200)
  })

  it('still revokes a refresh token sent with token_type_hint=access_token', async () => {
    const issued = await issue(server)
    await expectRevoked(
      await revoke(server, issued.client, issued.refreshToken, { token_type_hint: 'access_token' }),
    )
    expect((await account(issued.accessToken)).status).toBe(401)
    const again = await postToken(server, refreshFields(issued.client, issued.refreshToken))
    await expectOAuthError(again, 400, 'invalid_grant')
  })

  it('accepts an unknown hint value and still revokes', async () => {
    const issued = await issue(server)
    await expectRevoked(
      await revoke(server, issued.client, issued.accessToken, { token_type_hint: 'id_token' }),
    )
    expect((await account(issued.accessToken)).status).toBe(401)
  })
})

describe('RFC 7009 §2.1–2.2: a token that is not the client’s is left alone, yet the answer is 200', () => {
  it('does not revoke another client’s access token', async () => {
    const victim = await issue(server)
    const attacker = await issue(server)
    await expectRevoked(await revoke(server, attacker.client, victim.accessToken))
    expect((await account(victim.accessToken)).status).toBe(200)
  })

  it('does not revoke another client’s refresh token, nor end its grant', async () => {
    const victim = await issue(server)
    const attacker = await issue(server)
    await expectRevoked(await revoke(server, attacker.client, victim.refreshToken))
    expect((await account(victim.accessToken)).status).toBe(200)
    expect(
      (await postToken(server, refreshFields(victim.client, victim.refreshToken))).status,
    ).toBe(200)
  })

  it('answers 200 for an unknown token of the right shape', async () => {
    const issued = await issue(server)
    await expectRevoked(
      await revoke(server, issued.client, `pat_${randomBytes(32).toString('base64url')}`),
    )
    await expectRevoked(
      await revoke(server, issued.client, `prt_${randomBytes(32).toString('base64url')}`),
    )
    expect((await account(issued.accessToken)).status).toBe(200)
  })

  it('answers 200 for malformed tokens', async () => {
    const issued = await issue(server)
    for (const token of ['x', 'not a token at all', '{"json":true}', 'é'.repeat(300)]) {
      await expectRevoked(await revoke(server, issued.client, token))
    }
    expect((await account(issued.accessToken)).status).toBe(200)
  })
})

describe('RFC 7009 §2.1: the request', () => {
  it('refuses a missing token with 400 invalid_request', async () => {
    const issued = await issue(server)
    await expectOAuthError(await revoke(server, issued.client, undefined), 400, 'invalid_request')
    await expectOAuthError(await revoke(server, issued.client, ''), 400, 'invalid_request')
  })

  it('refuses a token given twice with 400 invalid_request', async () => {
    const issued = await issue(server)
    const body = new URLSearchParams({ client_id: issued.client.clientId })
    body.append('token', issued.accessToken)
    body.append('token', issued.refreshToken)
    const response = await server.fetch(REVOKE, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: body.toString(),
    })
    await expectOAuthError(response, 400, 'invalid_request')
    expect((await account(issued.accessToken)).status).toBe(200)
  })

  it('refuses a JSON body with 400 invalid_request, revoking nothing', async () => {
    const issued = await issue(server)
    const response = await server.fetch(
      REVOKE,
      jsonInit({ token: issued.accessToken, client_id: issued.client.clientId }),
    )
    await expectOAuthError(response, 400, 'invalid_request')
    expect((await account(issued.accessToken)).status).toBe(200)
  })

  it('is POST only', async () => {
    const response = await server.fetch(`${REVOKE}?token=x&client_id=y`)
    expect(response.status).toBeGreaterThanOrEqual(400)
    expect(response.status).toBeLessThan(500)
  })
})

describe('RFC 7009 §2.1 / RFC 6749 §5.2: failed client authentication is 401 invalid_client', () => {
  it('refuses a confidential client with a wrong secret, and revokes nothing', async () => {
    const issued = await issue(server, {
      metadata: { token_endpoint_auth_method: 'client_secret_post' },
    })
    const wrong = { clientId: issued.client.clientId, clientSecret: 'wrong-secret' }
    await expectOAuthError(await revoke(server, wrong, issued.accessToken), 401, 'invalid_client')
    expect((await account(issued.accessToken)).status).toBe(200)
  })

  it('refuses a confidential client that sends no secret', async () => {
    const issued = await issue(server, {
      metadata: { token_endpoint_auth_method: 'client_secret_post' },
    })
    const bare = { clientId: issued.client.clientId }
    await expectOAuthError(await revoke(server, bare, issued.accessToken), 401, 'invalid_client')
    expect((await account(issued.accessToken)).status).toBe(200)
  })

  it('refuses an unknown client', async () => {
    const issued = await issue(server)
    const unknown = { clientId: `cli_${randomBytes(16).toString('base64url')}` }
    await expectOAuthError(await revoke(server, unknown, issued.accessToken), 401, 'invalid_client')
    expect((await account(issued.accessToken)).status).toBe(200)
  })

  it('refuses a request without client_id', async () => {
    const issued = await issue(server)
    const response = await server.fetch(REVOKE, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: issued.accessToken }).toString(),
    })
    await expectOAuthError(response, 401, 'invalid_client')
    expect((await account(issued.accessToken)).status).toBe(200)
  })

  it('refuses a public client that sends a secret', async () => {
    const issued = await issue(server)
    const forged = { clientId: issued.client.clientId, clientSecret: 'anything' }
    await expectOAuthError(await revoke(server, forged, issued.accessToken), 401, 'invalid_client')
    expect((await account(issued.accessToken)).status).toBe(200)
  })
})

describe('CORS: the revocation endpoint is open to any origin', () => {
  it('answers a preflight and a cross-origin POST with Access-Control-Allow-Origin: *', async () => {
    const preflight = await server.fetch(REVOKE, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://tool.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    })
    expect(preflight.status).toBeLessThan(300)
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*')
    expect(preflight.headers.get('access-control-allow-methods')).toMatch(/POST/)

    const issued = await issue(server)
    const response = await server.fetch(REVOKE, {
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
    await expectRevoked(response)
    expect(response.headers.get('access-control-allow-origin')).toBe('*')
    expect((await account(issued.accessToken)).status).toBe(401)
  })

  it('sets Access-Control-Allow-Origin: * on errors too', async () => {
    const response = await server.fetch(REVOKE, {
      method: 'POST',
      headers: { origin: 'https://tool.example', 'content-type': 'application/json' },
      body: '{}',
    })
    expect(response.status).toBe(400)
    expect(response.headers.get('access-control-allow-origin')).toBe('*')
  })
})

describe('discovery', () => {
  it('advertises revocation_endpoint, which is the endpoint that answers', async () => {
    const metadata = await readJson(await server.fetch('/.well-known/oauth-authorization-server'))
    expect(metadata.revocation_endpoint).toBe(`${server.issuer}${REVOKE}`)
    // RFC 8414 §2: without this list clients would assume client_secret_basic.
    expect([...metadata.revocation_endpoint_auth_methods_supported].sort()).toEqual([
      'client_secret_post',
      'none',
    ])
    const issued = await issue(server)
    const response = await fetch(metadata.revocation_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        token: issued.accessToken,
        client_id: issued.client.clientId,
      }).toString(),
    })
    await expectRevoked(response)
    expect((await account(issued.accessToken)).status).toBe(401)
  })
})
