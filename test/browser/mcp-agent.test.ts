import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js'
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { collectPageErrors, launchBrowser, newPage } from '../support/browser.js'
import { createPerson } from '../support/flow.js'
import { startTestServer, type TestServer } from '../support/server.js'

let server: TestServer
let browser: Browser
beforeAll(async () => {
  server = await startTestServer()
  browser = await launchBrowser()
})
afterAll(async () => {
  await browser?.close()
  await server?.close()
})

/** What an agent keeps between runs, in memory: its registration, tokens and PKCE verifier. */
class AgentProvider implements OAuthClientProvider {
  readonly redirectUrl = 'http://127.0.0.1:49231/callback'
  client?: OAuthClientInformationMixed
  saved?: OAuthTokens
  verifier = ''
  authorizationUrl?: URL
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Test agent',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    }
  }
  clientInformation() {
    return this.client
  }
  saveClientInformation(client: OAuthClientInformationMixed) {
    this.client = client
  }
  tokens() {
    return this.saved
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier
  }
  codeVerifier() {
    return this.verifier
  }
}

async function connect(provider: AgentProvider): Promise<Client> {
  const client = new Client({ name: 'test-agent', version: '1.0.0' })
  const transport = new StreamableHTTPClientTransport(new URL(`${server.issuer}/mcp`), {
    authProvider: provider,
  })
  await client.connect(transport)
  return client
}

describe('an MCP agent from nothing but <issuer>/mcp', () => {
  it('is challenged, registers, gets consent in Chromium, uses tools and refreshes', async () => {
    const person = await createPerson(server, 'editor')
    const provider = new AgentProvider()

    // 1. The first request is challenged; the SDK discovers the metadata and registers.
    const transport = new StreamableHTTPClientTransport(new URL(`${server.issuer}/mcp`), {
      authProvider: provider,
    })
    const first = await new Client({ name: 'test-agent', version: '1.0.0' })
      .connect(transport)
      .catch((e: unknown) => e)
    expect(first).toBeInstanceOf(UnauthorizedError)
    expect(provider.client?.client_id).toBeTruthy()
    const url = provider.authorizationUrl
    if (!url) throw new Error('the SDK did not send the person to authorize')
    expect(url.origin + url.pathname).toBe(`${server.issuer}/oauth/authorize`)
    expect(url.searchParams.get('resource')).toBe(`${server.issuer}/mcp`)
    expect(url.searchParams.get('scope')?.split(' ')).toContain('courses:read')

    // 2. The person signs in and approves in a real browser.
    const page = await newPage(browser)
    const errors = collectPageErrors(page)
    await page.route(`${provider.redirectUrl}**`, (route) =>
      route.fulfill({ status: 200, contentType: 'text/plain', body: 'callback reached' }),
    )
    await page.goto(url.toString())
    await page.fill('#email', person.email)
    await page.fill('#password', person.password)
    await page.click('button[type=submit].primary')
    await page.waitForSelector('form.decision')
    expect(await page.textContent('body')).toContain('Test agent')
    await page.click('button[name=decision][value=approve]')
    await page.waitForURL(`${provider.redirectUrl}**`)
    const code = new URL(page.url()).searchParams.get('code') ?? ''
    expect(code).not.toBe('')
    expect(errors).toEqual([])
    await page.context().close()

    // 3. The SDK exchanges the code (with resource=<issuer>/mcp) and the tools answer.
    await transport.finishAuth(code)
    const firstTokens = provider.saved
    expect(firstTokens?.refresh_token).toBeTruthy()
    const client = await connect(provider)
    const { tools } = await client.listTools()
    expect(tools.some((t) => t.name === 'courses_list')).toBe(true)
    const list = await client.callTool({ name: 'courses_list', arguments: { limit: 5 } })
    expect(list.isError).toBeFalsy()
    expect(list.structuredContent).toMatchObject({ object: 'list' })
    await client.close()

    // 4. A dead access token: the 401 makes the SDK refresh, and the call goes through.
    provider.saved = { ...(firstTokens as OAuthTokens), access_token: 'pat_expired_or_revoked' }
    const again = await connect(provider)
    expect((await again.listTools()).tools.length).toBe(tools.length)
    expect(provider.saved?.access_token).not.toBe('pat_expired_or_revoked')
    expect(provider.saved?.refresh_token).not.toBe(firstTokens?.refresh_token)
    await again.close()
  })
})
