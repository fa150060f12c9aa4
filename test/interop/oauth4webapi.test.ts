import * as oauth from 'oauth4webapi'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPerson, type TestPerson } from '../support/flow.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { signInAndDecide } from './support/sign-in.js'

/**
 * oauth4webapi (panva), unmodified, against a started Portico, starting where a client that
 * only knows the API would: its protected resource metadata (RFC 9728). The only relaxation
 * is `allowInsecureRequests` for the plain-http loopback test server; the ID token's
 * signature is verified too (`validateApplicationLevelSignature`).
 */

const REDIRECT_URI = 'http://127.0.0.1:45872/callback'
const SCOPE = 'openid email account:read'
const insecure = { [oauth.allowInsecureRequests]: true } as const

let server: TestServer
let person: TestPerson
let as: oauth.AuthorizationServer
let client: oauth.Client
const auth = oauth.None()

beforeAll(async () => {
  server = await startTestServer()
  person = await createPerson(server, 'owner')
})
afterAll(async () => {
  await server?.close()
})

async function authorize(forClient: oauth.Client = client) {
  const verifier = oauth.generateRandomCodeVerifier()
  const state = oauth.generateRandomState()
  const nonce = oauth.generateRandomNonce()
  const url = new URL(as.authorization_endpoint ?? '')
  url.search = new URLSearchParams({
    client_id: forClient.client_id,
    redirect_uri: REDIRECT_URI,
    response_type: 'code',
    scope: SCOPE,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
    max_age: '300',
    resource: server.issuer,
  }).toString()
  return { verifier, state, nonce, callback: await signInAndDecide(server, person, url) }
}

describe('oauth4webapi', { timeout: 60_000 }, () => {
  it('finds Portico from the API metadata, checks both identifiers, and registers', async () => {
    const apiUrl = new URL(server.issuer)
    const resource = await oauth.processResourceDiscoveryResponse(
      apiUrl,
      await oauth.resourceDiscoveryRequest(apiUrl, insecure),
    )
    expect(resource.authorization_servers).toEqual([server.issuer])

    const issuer = new URL(resource.authorization_servers?.[0] ?? '')
    as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...insecure }),
    )
    expect(as.issuer).toBe(server.issuer)
    expect(as.code_challenge_methods_supported).toEqual(['S256'])

    const registered = await oauth.processDynamicClientRegistrationResponse(
      await oauth.dynamicClientRegistrationRequest(
        as,
        {
          client_name: 'oauth4webapi interop',
          redirect_uris: [REDIRECT_URI],
          token_endpoint_auth_method: 'none',
        },
        insecure,
      ),
    )
    client = { ...registered, client_id: registered.client_id }
    expect(client.client_id).toMatch(/^pci_/)
    expect(client.token_endpoint_auth_method).toBe('none')
  })

  it('validateAuthResponse refuses a wrong or missing iss and a wrong state (RFC 9207)', async () => {
    const { state, callback } = await authorize()
    const wrongIss = new URL(callback)
    wrongIss.searchParams.set('iss', `${server.issuer}/`)
    expect(() => oauth.validateAuthResponse(as, client, wrongIss, state)).toThrow(
      'unexpected "iss" (issuer) response parameter value',
    )
    const noIss = new URL(callback)
    noIss.searchParams.delete('iss')
    expect(() => oauth.validateAuthResponse(as, client, noIss, state)).toThrow(
      'response parameter "iss" (issuer) missing',
    )
    expect(() =>
      oauth.validateAuthResponse(as, client, callback, oauth.generateRandomState()),
    ).toThrow('unexpected "state" response parameter value')
  })

  it('reports a denial as an authorization response error with state and iss', async () => {
    const state = oauth.generateRandomState()
    const url = new URL(as.authorization_endpoint ?? '')
    url.search = new URLSearchParams({
      client_id: client.client_id,
      redirect_uri: REDIRECT_URI,
      response_type: 'code',
      scope: SCOPE,
      code_challenge: await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier()),
      code_challenge_method: 'S256',
      state,
    }).toString()
    const callback = await signInAndDecide(server, person, url, 'deny')
    expect(() => oauth.validateAuthResponse(as, client, callback, state)).toThrow(
      expect.objectContaining({ error: 'access_denied' }),
    )
  })

  it('runs the whole flow: code + PKCE, signed ID token, API, userinfo, refresh, revocation', async () => {
    const { verifier, state, nonce, callback } = await authorize()
    const params = oauth.validateAuthResponse(as, client, callback, state)

    const response = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      auth,
      params,
      REDIRECT_URI,
      verifier,
      { ...insecure, additionalParameters: { resource: server.issuer } },
    )
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, response, {
      expectedNonce: nonce,
      requireIdToken: true,
      maxAge: 300,
    })
    await oauth.validateApplicationLevelSignature(as, response, insecure)
    expect(server.logs.some((l) => l.path === '/.well-known/jwks.json' && l.status === 200)).toBe(
      true,
    )
    const claims = oauth.getValidatedIdTokenClaims(tokens)
    expect(claims).toMatchObject({
      iss: server.issuer,
      sub: person.user.id,
      aud: client.client_id,
      nonce,
    })
    expect(tokens.token_type).toBe('bearer')
    expect(tokens.scope).toBe(SCOPE)

    const api = await oauth.protectedResourceRequest(
      tokens.access_token,
      'GET',
      new URL('/api/v1/account', server.issuer),
      undefined,
      undefined,
      insecure,
    )
    expect(api.status).toBe(200)
    expect(await api.json()).toMatchObject({ object: 'account', id: person.user.id })

    const userinfo = await oauth.processUserInfoResponse(
      as,
      client,
      person.user.id,
      await oauth.userInfoRequest(as, client, tokens.access_token, insecure),
    )
    expect(userinfo).toEqual({ sub: person.user.id, email: person.email, email_verified: true })

    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, auth, tokens.refresh_token ?? '', insecure),
    )
    expect(refreshed.access_token).not.toBe(tokens.access_token)
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token)

    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, client, auth, refreshed.refresh_token ?? '', {
        ...insecure,
        additionalParameters: { token_type_hint: 'refresh_token' },
      }),
    )
    await expect(
      oauth.processRefreshTokenResponse(
        as,
        client,
        await oauth.refreshTokenGrantRequest(
          as,
          client,
          auth,
          refreshed.refresh_token ?? '',
          insecure,
        ),
      ),
    ).rejects.toMatchObject({ name: 'ResponseBodyError', error: 'invalid_grant' })
    await expect(
      oauth.processUserInfoResponse(
        as,
        client,
        person.user.id,
        await oauth.userInfoRequest(as, client, refreshed.access_token, insecure),
      ),
    ).rejects.toMatchObject({ name: 'WWWAuthenticateChallengeError', status: 401 })
  })

  it('verifies the ES256 ID token of a client that registered id_token_signed_response_alg', async () => {
    const es256 = await oauth.processDynamicClientRegistrationResponse(
      await oauth.dynamicClientRegistrationRequest(
        as,
        {
          client_name: 'oauth4webapi ES256',
          redirect_uris: [REDIRECT_URI],
          token_endpoint_auth_method: 'none',
          id_token_signed_response_alg: 'ES256',
        },
        insecure,
      ),
    )
    const es256Client: oauth.Client = { ...es256, client_id: es256.client_id }
    expect(es256Client.id_token_signed_response_alg).toBe('ES256')
    const { verifier, state, nonce, callback } = await authorize(es256Client)
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      es256Client,
      auth,
      oauth.validateAuthResponse(as, es256Client, callback, state),
      REDIRECT_URI,
      verifier,
      insecure,
    )
    const tokens = await oauth.processAuthorizationCodeResponse(as, es256Client, response, {
      expectedNonce: nonce,
      requireIdToken: true,
      maxAge: 300,
    })
    await oauth.validateApplicationLevelSignature(as, response, insecure)
    const header = JSON.parse(
      Buffer.from(tokens.id_token?.split('.')[0] ?? '', 'base64url').toString(),
    ) as { alg: string; kid: string }
    expect(header.alg).toBe('ES256')
    expect(oauth.getValidatedIdTokenClaims(tokens)?.aud).toBe(es256Client.client_id)
  })
})
