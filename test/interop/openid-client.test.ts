import * as client from 'openid-client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPerson, type TestPerson } from '../support/flow.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { signInAndDecide } from './support/sign-in.js'

/**
 * openid-client v6 (panva), unmodified, against a started Portico. The only relaxation is
 * `allowInsecureRequests`, because the test server is plain http on 127.0.0.1; everything
 * else runs with the library's checks, plus ID-token signature verification
 * (`enableNonRepudiationChecks`), which the library leaves off by default.
 */

const REDIRECT_URI = 'http://127.0.0.1:45871/callback'
const SCOPE = 'openid profile email account:read'

let server: TestServer
let person: TestPerson
let config: client.Configuration

beforeAll(async () => {
  server = await startTestServer()
  person = await createPerson(server, 'owner')
})
afterAll(async () => {
  await server?.close()
})

/** openid-client wraps oauth4webapi's verdict: the exact reason is the cause's message. */
const because = (message: string) => ({ cause: { message } })

async function authorize(extra: Record<string, string> = {}) {
  const verifier = client.randomPKCECodeVerifier()
  const state = client.randomState()
  const nonce = client.randomNonce()
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT_URI,
    scope: SCOPE,
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
    max_age: '600',
    ...extra,
  })
  const callback = await signInAndDecide(server, person, url)
  return { verifier, state, nonce, callback }
}

describe('openid-client v6', { timeout: 60_000 }, () => {
  it('discovers Portico and registers itself (RFC 8414 issuer check, RFC 7591)', async () => {
    config = await client.dynamicClientRegistration(
      new URL(server.issuer),
      {
        client_name: 'openid-client interop',
        redirect_uris: [REDIRECT_URI],
        token_endpoint_auth_method: 'none',
        response_types: ['code'],
        grant_types: ['authorization_code', 'refresh_token'],
      },
      client.None(),
      { execute: [client.allowInsecureRequests, client.enableNonRepudiationChecks] },
    )
    const metadata = config.serverMetadata()
    expect(metadata.issuer).toBe(server.issuer)
    expect(metadata.authorization_response_iss_parameter_supported).toBe(true)
    expect(metadata.supportsPKCE()).toBe(true)
    expect(config.clientMetadata().client_id).toMatch(/^pci_/)
  })

  it('refuses an authorization response whose iss is not the issuer (RFC 9207)', async () => {
    const { verifier, state, nonce, callback } = await authorize()
    const forged = new URL(callback)
    forged.searchParams.set('iss', 'http://127.0.0.1:1')
    await expect(
      client.authorizationCodeGrant(config, forged, {
        pkceCodeVerifier: verifier,
        expectedState: state,
        expectedNonce: nonce,
      }),
    ).rejects.toMatchObject(because('unexpected "iss" (issuer) response parameter value'))
    const withoutIss = new URL(callback)
    withoutIss.searchParams.delete('iss')
    await expect(
      client.authorizationCodeGrant(config, withoutIss, {
        pkceCodeVerifier: verifier,
        expectedState: state,
        expectedNonce: nonce,
      }),
    ).rejects.toMatchObject(because('response parameter "iss" (issuer) missing'))
  })

  it('refuses an authorization response with another state', async () => {
    const { verifier, nonce, callback } = await authorize()
    await expect(
      client.authorizationCodeGrant(config, callback, {
        pkceCodeVerifier: verifier,
        expectedState: client.randomState(),
        expectedNonce: nonce,
      }),
    ).rejects.toMatchObject(because('unexpected "state" response parameter value'))
  })

  it('runs the whole flow: code + PKCE, ID token, API, userinfo, refresh, revocation', async () => {
    const { verifier, state, nonce, callback } = await authorize()
    expect(callback.searchParams.get('iss')).toBe(server.issuer)

    const tokens = await client.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: verifier,
      expectedState: state,
      expectedNonce: nonce,
      idTokenExpected: true,
      maxAge: 600,
    })
    expect(tokens.token_type).toBe('bearer')
    expect(tokens.scope).toBe(SCOPE)
    expect(tokens.access_token).toMatch(/^pat_/)
    expect(tokens.refresh_token).toMatch(/^prt_/)
    const claims = tokens.claims()
    expect(claims).toMatchObject({
      iss: server.issuer,
      sub: person.user.id,
      aud: config.clientMetadata().client_id,
      nonce,
    })
    expect(typeof claims?.auth_time).toBe('number')
    // enableNonRepudiationChecks: the signature was verified against the published keys.
    expect(server.logs.some((l) => l.path === '/.well-known/jwks.json' && l.status === 200)).toBe(
      true,
    )

    const index = await client.fetchProtectedResource(
      config,
      tokens.access_token,
      new URL('/api/v1', server.issuer),
      'GET',
    )
    expect(index.status).toBe(200)
    expect(await index.json()).toMatchObject({
      object: 'api_index',
      caller: { user_id: person.user.id },
    })
    const account = await client.fetchProtectedResource(
      config,
      tokens.access_token,
      new URL('/api/v1/account', server.issuer),
      'GET',
    )
    expect(await account.json()).toMatchObject({ object: 'account', email: person.email })

    const userinfo = await client.fetchUserInfo(config, tokens.access_token, person.user.id)
    expect(userinfo).toMatchObject({ sub: person.user.id, email: person.email })

    const introspection = await client.tokenIntrospection(config, tokens.access_token)
    expect(introspection).toMatchObject({ active: true, sub: person.user.id, scope: SCOPE })

    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token ?? '')
    expect(refreshed.access_token).not.toBe(tokens.access_token)
    expect(refreshed.refresh_token).toMatch(/^prt_/)
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token)
    const userinfoAgain = await client.fetchUserInfo(config, refreshed.access_token, claims!.sub)
    expect(userinfoAgain.sub).toBe(person.user.id)

    await client.tokenRevocation(config, refreshed.refresh_token ?? '', {
      token_type_hint: 'refresh_token',
    })
    await expect(client.refreshTokenGrant(config, refreshed.refresh_token ?? '')).rejects.toThrow(
      expect.objectContaining({ error: 'invalid_grant' }),
    )
    // RFC 6750 §3: the revoked grant's access token is answered 401 with a challenge.
    await expect(
      client.fetchProtectedResource(
        config,
        refreshed.access_token,
        new URL('/api/v1', server.issuer),
        'GET',
      ),
    ).rejects.toMatchObject({
      name: 'WWWAuthenticateChallengeError',
      status: 401,
      cause: [
        expect.objectContaining({
          scheme: 'bearer',
          parameters: expect.objectContaining({ error: 'invalid_token' }),
        }),
      ],
    })
  })

  it('works as a confidential client with client_secret_post, the method Portico advertises', async () => {
    const confidential = await client.dynamicClientRegistration(
      new URL(server.issuer),
      {
        client_name: 'openid-client confidential',
        redirect_uris: [REDIRECT_URI],
        token_endpoint_auth_method: 'client_secret_post',
      },
      undefined,
      { execute: [client.allowInsecureRequests, client.enableNonRepudiationChecks] },
    )
    expect(confidential.clientMetadata().client_secret).toMatch(/^pcs_/)
    const verifier = client.randomPKCECodeVerifier()
    const state = client.randomState()
    const nonce = client.randomNonce()
    const url = client.buildAuthorizationUrl(confidential, {
      redirect_uri: REDIRECT_URI,
      scope: 'openid account:read',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    })
    const callback = await signInAndDecide(server, person, url)
    const tokens = await client.authorizationCodeGrant(confidential, callback, {
      pkceCodeVerifier: verifier,
      expectedState: state,
      expectedNonce: nonce,
    })
    expect(tokens.claims()?.aud).toBe(confidential.clientMetadata().client_id)
    const refreshed = await client.refreshTokenGrant(confidential, tokens.refresh_token ?? '')
    await client.tokenRevocation(confidential, refreshed.refresh_token ?? '')
    await expect(
      client.refreshTokenGrant(confidential, refreshed.refresh_token ?? ''),
    ).rejects.toMatchObject({ error: 'invalid_grant' })
  })
})
