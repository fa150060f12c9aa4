import { randomBytes } from 'node:crypto'
import {
  auth,
  extractWWWAuthenticateParams,
  type OAuthClientProvider,
} from '@modelcontextprotocol/sdk/client/auth.js'
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPerson, type TestPerson } from '../support/flow.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { signInAndDecide } from './support/sign-in.js'

/**
 * The OAuth client of the Model Context Protocol TypeScript SDK, unmodified: its `auth()`
 * starts from a 401 of the API and its protected resource metadata (RFC 9728), registers
 * itself (RFC 7591), sends `resource` (RFC 8707) and PKCE, exchanges the code and refreshes.
 * The SDK leaves `state` and `iss` of the authorization response to the application and
 * has no revocation client; the provider below does what an agent would.
 */

const REDIRECT_URI = 'http://127.0.0.1:45873/callback'
const SCOPE = 'openid profile account:read'

/** An agent's provider that keeps everything in memory. */
class MemoryProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined
  saved: OAuthTokens | undefined
  verifier = ''
  expectedState = ''
  readonly opened: URL[] = []
  readonly invalidated: string[] = []

  get redirectUrl(): string {
    return REDIRECT_URI
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'MCP SDK interop',
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    }
  }
  state(): string {
    this.expectedState = randomBytes(16).toString('base64url')
    return this.expectedState
  }
  clientInformation() {
    return this.client
  }
  saveClientInformation(information: OAuthClientInformationMixed): void {
    this.client = information
  }
  tokens() {
    return this.saved
  }
  saveTokens(tokens: OAuthTokens): void {
    this.saved = tokens
  }
  redirectToAuthorization(url: URL): void {
    this.opened.push(url)
  }
  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier
  }
  codeVerifier(): string {
    return this.verifier
  }
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    this.invalidated.push(scope)
    if (scope === 'all' || scope === 'tokens') this.saved = undefined
    if (scope === 'all' || scope === 'client') this.client = undefined
  }
}

let server: TestServer
let person: TestPerson
let apiUrl: string

beforeAll(async () => {
  server = await startTestServer()
  person = await createPerson(server, 'owner')
  apiUrl = `${server.issuer}/api/v1`
})
afterAll(async () => {
  await server?.close()
})

/** What the agent does with the redirect: check state and iss (RFC 9207), then take the code. */
function codeFrom(callback: URL, provider: MemoryProvider): string {
  expect(callback.origin + callback.pathname).toBe(REDIRECT_URI)
  expect(callback.searchParams.get('state')).toBe(provider.expectedState)
  expect(callback.searchParams.get('iss')).toBe(server.issuer)
  return callback.searchParams.get('code') ?? ''
}

const withToken = (token: string) => ({ headers: { authorization: `Bearer ${token}` } })

describe('the MCP TypeScript SDK OAuth client', { timeout: 60_000 }, () => {
  it('goes from a 401 of the API to tokens, calls the API and userinfo, refreshes, and is sent back to consent after revocation', async () => {
    const challenge = await fetch(`${apiUrl}/account`)
    expect(challenge.status).toBe(401)
    const { resourceMetadataUrl } = extractWWWAuthenticateParams(challenge)
    expect(resourceMetadataUrl?.href).toBe(`${server.issuer}/.well-known/oauth-protected-resource`)

    const provider = new MemoryProvider()
    const options = { serverUrl: apiUrl, resourceMetadataUrl, scope: SCOPE }
    expect(await auth(provider, options)).toBe('REDIRECT')
    expect(provider.client?.client_id).toMatch(/^pci_/)
    const [authorizationUrl] = provider.opened
    expect(authorizationUrl?.searchParams.get('resource')).toBe(server.issuer)
    expect(authorizationUrl?.searchParams.get('code_challenge_method')).toBe('S256')
    expect(authorizationUrl?.searchParams.get('state')).toBe(provider.expectedState)

    const callback = await signInAndDecide(server, person, authorizationUrl ?? '')
    const code = codeFrom(callback, provider)
    expect(await auth(provider, { ...options, authorizationCode: code })).toBe('AUTHORIZED')
    const first = provider.saved
    expect(first).toMatchObject({ token_type: 'Bearer', scope: SCOPE })
    expect(first?.access_token).toMatch(/^pat_/)

    const account = await fetch(`${apiUrl}/account`, withToken(first?.access_token ?? ''))
    expect(account.status).toBe(200)
    expect(await account.json()).toMatchObject({ object: 'account', id: person.user.id })
    const userinfo = await fetch(
      `${server.issuer}/api/oauth/userinfo`,
      withToken(first?.access_token ?? ''),
    )
    expect(await userinfo.json()).toMatchObject({ sub: person.user.id, name: person.user.name })

    // With a refresh token stored, auth() refreshes (sending resource again).
    expect(await auth(provider, options)).toBe('AUTHORIZED')
    const second = provider.saved
    expect(second?.access_token).not.toBe(first?.access_token)
    expect(second?.refresh_token).not.toBe(first?.refresh_token)
    const again = await fetch(`${apiUrl}/account`, withToken(second?.access_token ?? ''))
    expect(again.status).toBe(200)

    const metadata = (await (
      await fetch(`${server.issuer}/.well-known/oauth-authorization-server`)
    ).json()) as { revocation_endpoint: string }
    const revoked = await fetch(metadata.revocation_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        token: second?.refresh_token ?? '',
        token_type_hint: 'refresh_token',
        client_id: provider.client?.client_id ?? '',
      }),
    })
    expect(revoked.status).toBe(200)
    const refused = await fetch(`${apiUrl}/account`, withToken(second?.access_token ?? ''))
    expect(refused.status).toBe(401)

    // The refresh is refused with invalid_grant: the SDK drops the tokens and starts over.
    expect(await auth(provider, options)).toBe('REDIRECT')
    expect(provider.invalidated).toEqual(['tokens'])
    expect(provider.opened).toHaveLength(2)
  })

  it('without the 401 hint, falls back from the path-aware metadata URL to the root one', async () => {
    const provider = new MemoryProvider()
    expect(await auth(provider, { serverUrl: `${apiUrl}/account`, scope: 'account:read' })).toBe(
      'REDIRECT',
    )
    const [authorizationUrl] = provider.opened
    expect(authorizationUrl?.origin).toBe(server.issuer)
    expect(authorizationUrl?.pathname).toBe('/oauth/authorize')
    expect(authorizationUrl?.searchParams.get('resource')).toBe(server.issuer)
    expect(authorizationUrl?.searchParams.get('scope')).toBe('account:read')
  })
})
