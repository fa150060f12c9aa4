import { randomBytes } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
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
import * as client from 'openid-client'
import type { Browser as Chromium } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchBrowser, newPage, saveScreenshot } from '../support/browser.js'
import {
  type DocumentServer,
  makeCertificate,
  startDocumentServer,
} from '../support/document-server.js'
import { createPerson, type TestPerson } from '../support/flow.js'
import { startTestServer, type TestServer } from '../support/server.js'

/**
 * Client ID Metadata Documents with real clients, unmodified: the MCP TypeScript SDK (which
 * switches to a URL client_id when the server advertises client_id_metadata_document_supported)
 * and openid-client v6. Each document is served by the test's HTTPS server and lists a
 * port-less loopback callback, as real agents publish them; the person signs in and
 * approves in Chromium.
 */

let server: TestServer
let documents: DocumentServer
let chromium: Chromium
let person: TestPerson

beforeAll(async () => {
  documents = await startDocumentServer(await makeCertificate())
  server = await startTestServer({ outbound: { ca: documents.ca } })
  chromium = await launchBrowser()
  person = await createPerson(server, 'owner')
})
afterAll(async () => {
  await chromium?.close()
  await server?.close()
  await documents?.close()
})

/** Serves a metadata document at `path` and returns its URL, the client_id. */
function publish(path: string, name: string): string {
  const url = documents.url(path)
  documents.json(path, {
    client_id: url,
    client_name: name,
    client_uri: 'https://agent.example',
    redirect_uris: ['http://127.0.0.1/callback'],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  })
  return url
}

/** A tool's loopback callback: a real listener on a free port of 127.0.0.1. */
async function listenForCallback(): Promise<{
  uri: string
  arrived: () => URL | undefined
  close: () => void
}> {
  let arrived: URL | undefined
  const listener = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1')
    if (url.pathname === '/callback') arrived = url
    response.writeHead(200, { 'content-type': 'text/plain' }).end('ok')
  })
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve))
  const { port } = listener.address() as AddressInfo
  return {
    uri: `http://127.0.0.1:${port}/callback`,
    arrived: () =>
      arrived && new URL(`http://127.0.0.1:${port}${arrived.pathname}${arrived.search}`),
    close: () => listener.close(),
  }
}

/**
 * The person in Chromium: signs in, checks what the consent page says about the tool, and
 * approves; returns where the browser arrived at the tool's callback.
 */
async function approveInChromium(
  authorizationUrl: URL | string,
  callback: Awaited<ReturnType<typeof listenForCallback>>,
  name: string,
): Promise<URL> {
  const page = await newPage(chromium)
  try {
    await page.goto(String(authorizationUrl))
    await page.fill('#email', person.email)
    await page.fill('#password', person.password)
    await page.click('button[type=submit]:has-text("Sign in")')
    await page.waitForSelector('form.decision')
    expect(await page.textContent('.client-name')).toBe(name)
    expect(await page.textContent('.document-host strong')).toBe(`127.0.0.1:${documents.port}`)
    expect(await page.textContent('.destination')).toBe(new URL(callback.uri).host)
    expect(await page.textContent('.warning')).toContain('Unverified tool')
    await saveScreenshot(page, `client-id-metadata-consent-${name}`)
    await Promise.all([
      page.waitForURL((url) => url.href.startsWith(callback.uri)),
      page.click('form.decision button:has-text("Approve")'),
    ])
  } finally {
    await page.context().close()
  }
  const arrived = callback.arrived()
  if (!arrived) throw new Error('the browser never reached the callback')
  return arrived
}

const withToken = (token: string) => ({ headers: { authorization: `Bearer ${token}` } })

describe('the MCP TypeScript SDK with a metadata-URL client id', { timeout: 90_000 }, () => {
  let callback: Awaited<ReturnType<typeof listenForCallback>>
  beforeAll(async () => {
    callback = await listenForCallback()
  })
  afterAll(() => callback?.close())

  class DocumentProvider implements OAuthClientProvider {
    client: OAuthClientInformationMixed | undefined
    saved: OAuthTokens | undefined
    verifier = ''
    expectedState = ''
    readonly opened: URL[] = []
    readonly clientMetadataUrl: string
    constructor(clientMetadataUrl: string) {
      this.clientMetadataUrl = clientMetadataUrl
    }
    get redirectUrl(): string {
      return callback.uri
    }
    get clientMetadata(): OAuthClientMetadata {
      return {
        client_name: 'MCP agent',
        redirect_uris: [callback.uri],
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
  }

  it('discovers, authorizes in Chromium with consent, exchanges, calls the API and refreshes', async () => {
    const url = publish('/mcp/client.json', 'MCP agent')
    const apiUrl = `${server.issuer}/api/v1`
    const challenge = await fetch(`${apiUrl}/account`)
    const { resourceMetadataUrl } = extractWWWAuthenticateParams(challenge)
    const provider = new DocumentProvider(url)
    const options = { serverUrl: apiUrl, resourceMetadataUrl, scope: 'openid profile account:read' }

    expect(await auth(provider, options)).toBe('REDIRECT')
    const [authorizationUrl] = provider.opened
    expect(authorizationUrl?.searchParams.get('client_id')).toBe(url)
    expect(server.logs.filter((l) => l.msg === 'client registered')).toHaveLength(0)

    const arrived = await approveInChromium(authorizationUrl ?? '', callback, 'MCP agent')
    expect(arrived.searchParams.get('state')).toBe(provider.expectedState)
    expect(arrived.searchParams.get('iss')).toBe(server.issuer)
    const code = arrived.searchParams.get('code') ?? ''
    expect(await auth(provider, { ...options, authorizationCode: code })).toBe('AUTHORIZED')
    const first = provider.saved
    expect(first?.access_token).toMatch(/^pat_/)
    const account = await fetch(`${apiUrl}/account`, withToken(first?.access_token ?? ''))
    expect(account.status).toBe(200)

    expect(await auth(provider, options)).toBe('AUTHORIZED')
    const second = provider.saved
    expect(second?.access_token).not.toBe(first?.access_token)
    expect((await fetch(`${apiUrl}/account`, withToken(second?.access_token ?? ''))).status).toBe(
      200,
    )
  })
})

describe('openid-client v6 with a metadata-URL client id', { timeout: 90_000 }, () => {
  it('discovers, authorizes in Chromium with consent, exchanges, calls the API and refreshes', async () => {
    const url = publish('/oidc/client.json', 'OIDC agent')
    const callback = await listenForCallback()
    const config = await client.discovery(new URL(server.issuer), url, undefined, client.None(), {
      execute: [client.allowInsecureRequests, client.enableNonRepudiationChecks],
    })
    expect(config.serverMetadata().client_id_metadata_document_supported).toBe(true)

    const verifier = client.randomPKCECodeVerifier()
    const state = client.randomState()
    const nonce = client.randomNonce()
    const authorizationUrl = client.buildAuthorizationUrl(config, {
      redirect_uri: callback.uri,
      scope: 'openid profile account:read',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    })
    const arrived = await approveInChromium(authorizationUrl, callback, 'OIDC agent')
    const tokens = await client.authorizationCodeGrant(config, arrived, {
      pkceCodeVerifier: verifier,
      expectedState: state,
      expectedNonce: nonce,
      idTokenExpected: true,
    })
    expect(tokens.claims()).toMatchObject({ aud: url, iss: server.issuer, sub: person.user.id })
    const api = await client.fetchProtectedResource(
      config,
      tokens.access_token,
      new URL(`${server.issuer}/api/v1/account`),
      'GET',
    )
    expect(api.status).toBe(200)

    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token ?? '')
    expect(refreshed.access_token).not.toBe(tokens.access_token)
    const userinfo = await client.fetchUserInfo(config, refreshed.access_token, person.user.id)
    expect(userinfo.sub).toBe(person.user.id)
    callback.close()
  })
})
