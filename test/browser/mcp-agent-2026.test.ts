import {
  Client,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from '@modelcontextprotocol/client'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { collectPageErrors, launchBrowser, newPage } from '../support/browser.js'
import { createPerson, type TestPerson } from '../support/flow.js'
import { type Instances, startInstances } from '../support/instances.js'
import { type RoundRobin, startRoundRobin } from '../support/round-robin.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { needsPostgres } from '../support/skips.js'

// The whole life of an agent on the SDK's v2 client speaking MCP 2026-07-28 (no handshake:
// it probes with server/discover), from nothing but <issuer>/mcp: on one server (SQLite or
// PostgreSQL, as the run's database), and on two instances sharing one PostgreSQL database
// behind a round-robin balancer. The 2025-11-25 agent (v1 client) is mcp-agent.test.ts.

const MODERN = '2026-07-28'
let browser: Browser
beforeAll(async () => {
  browser = await launchBrowser()
})
afterAll(async () => {
  await browser?.close()
})

/** What the agent keeps in memory: its registration, tokens and PKCE verifier. */
class AgentProvider implements OAuthClientProvider {
  readonly redirectUrl = 'http://127.0.0.1:49232/callback'
  client?: StoredOAuthClientInformation
  saved?: StoredOAuthTokens
  verifier = ''
  /** Where the SDK found the authorization server, so the callback is bound to it (SEP-2352). */
  discovered?: OAuthDiscoveryState
  authorizationUrl?: URL
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Agent of 2026',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      application_type: 'native',
    }
  }
  clientInformation() {
    return this.client
  }
  saveClientInformation(client: StoredOAuthClientInformation) {
    this.client = client
  }
  tokens() {
    return this.saved
  }
  saveTokens(tokens: StoredOAuthTokens) {
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
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.discovered = state
  }
  discoveryState() {
    return this.discovered
  }
}

/** The person signs in (unless their session is still open) and approves; the callback's query. */
async function approve(
  page: Page,
  provider: AgentProvider,
  person: TestPerson,
  scope: string,
): Promise<URLSearchParams> {
  const url = provider.authorizationUrl
  if (!url) throw new Error('the SDK did not send the person to authorize')
  provider.authorizationUrl = undefined
  expect(url.searchParams.get('scope')?.split(' ')).toEqual(expect.arrayContaining([scope]))
  await page.goto(url.toString())
  if ((await page.locator('#email').count()) > 0) {
    await page.fill('#email', person.email)
    await page.fill('#password', person.password)
    await page.click('button[type=submit].primary')
  }
  await page.waitForSelector('form.decision')
  expect(await page.textContent('.client-name')).toBe('Agent of 2026')
  await page.click('button[name=decision][value=approve]')
  await page.waitForURL(`${provider.redirectUrl}**`)
  const callback = new URL(page.url()).searchParams
  expect(callback.get('code')).toBeTruthy()
  return callback
}

const course = (title: string) => ({
  title,
  pricing_plans: [{ name: 'Free', type: 'free', price: { amount: 0, currency: 'USD' } }],
})

/**
 * Challenge, registration, consent in Chromium, a read tool with a projection, step-up to
 * write (the v2 client re-authorizes on the 403 itself), a write with dry_run then for real,
 * and a refresh; every request at 2026-07-28.
 */
async function agentLife(issuer: string, person: TestPerson): Promise<void> {
  const provider = new AgentProvider()
  /** The protocol version of every MCP request the agent made. */
  const versions = new Set<string>()
  const agentFetch = async (url: string | URL, init?: RequestInit) => {
    const version = new Headers(init?.headers).get('mcp-protocol-version')
    if (String(url) === `${issuer}/mcp` && version) versions.add(version)
    return fetch(url, init)
  }
  const transport = () =>
    new StreamableHTTPClientTransport(new URL(`${issuer}/mcp`), {
      authProvider: provider,
      fetch: agentFetch,
    })
  const newClient = () =>
    new Client(
      { name: 'agent-2026', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: MODERN } } },
    )
  const page = await newPage(browser)
  const errors = collectPageErrors(page)
  await page.route(`${provider.redirectUrl}**`, (route) =>
    route.fulfill({ status: 200, contentType: 'text/plain', body: 'callback reached' }),
  )

  // 1. The probe is challenged; the SDK registers and sends the person to authorize.
  const first = transport()
  expect(
    await newClient()
      .connect(first)
      .catch((e: unknown) => e),
  ).toBeInstanceOf(UnauthorizedError)
  const clientId = provider.client?.client_id
  expect(clientId).toBeTruthy()
  expect(provider.authorizationUrl?.searchParams.get('resource')).toBe(`${issuer}/mcp`)
  // The callback names Portico as its issuer (RFC 9207), the one the SDK discovered and
  // checks it against before redeeming the code.
  const callback = await approve(page, provider, person, 'courses:read')
  expect(callback.get('iss')).toBe(issuer)
  expect(provider.discovered?.authorizationServerUrl).toBe(issuer)
  await first.finishAuth(callback)

  // 2. Connected at 2026-07-28: tools, and a read with a projection.
  let client = newClient()
  let connection = transport()
  await client.connect(connection)
  expect(client.getNegotiatedProtocolVersion()).toBe(MODERN)
  // The core surface: the catalogue, and the core reads the token allows (no write scope, so
  // no write tool at all).
  const { tools } = await client.listTools()
  const names = tools.map((t) => t.name)
  expect(names).toEqual(expect.arrayContaining(['find_operations', 'courses_list']))
  expect(names.filter((n) => n.includes('categor') || n.includes('create'))).toEqual([])
  const list = await client.callTool({ name: 'courses_list', arguments: { fields: ['title'] } })
  expect(list.structuredContent).toMatchObject({ object: 'list' })

  // 3. An operation it was never shown, found and described through the catalogue: filing
  // courses under a new category. Running it needs courses:write: the 403 makes the client
  // authorize again with it.
  const found = (
    await client.callTool({
      name: 'find_operations',
      arguments: { query: 'create course category', effect: 'write' },
    })
  ).structuredContent as { operations: Array<{ operation: string; access: string }> }
  expect(found.operations[0]).toMatchObject({
    operation: 'course_categories_create',
    access: 'needs_scope',
  })
  const described = (
    await client.callTool({
      name: 'describe_operation',
      arguments: { operation: 'course_categories_create' },
    })
  ).structuredContent as { run_with: string; example: Record<string, unknown> }
  expect(described).toMatchObject({ run_with: 'run_write_operation', example: { name: '…' } })
  const category = { name: 'Night photography' }
  const stepUp = await client
    .callTool({
      name: 'run_write_operation',
      arguments: { operation: 'course_categories_create', arguments: category, dry_run: true },
    })
    .catch((e: unknown) => e)
  expect(stepUp).toBeInstanceOf(UnauthorizedError)
  await client.close()
  await connection.finishAuth(await approve(page, provider, person, 'courses:write'))
  expect(provider.client?.client_id).toBe(clientId)
  expect(provider.tokens()?.scope?.split(' ')).toEqual(
    expect.arrayContaining(['courses:write', 'courses:read']),
  )

  // 4. The write, rehearsed then made (the core lists the course writes now).
  const write = course('Written at 2026-07-28')
  client = newClient()
  connection = transport()
  await client.connect(connection)
  const count = async () =>
    (
      (await client.callTool({ name: 'courses_list', arguments: { q: write.title } }))
        .structuredContent as { total_count: number }
    ).total_count
  const dry = await client.callTool({
    name: 'courses_create',
    arguments: { ...write, dry_run: true },
  })
  expect(dry.structuredContent).toMatchObject({ object: 'course', title: write.title })
  expect(await count()).toBe(0)
  const made = await client.callTool({
    name: 'courses_create',
    arguments: { ...write, idempotency_key: 'agent-2026' },
  })
  expect(made.isError).toBeFalsy()
  expect(await count()).toBe(1)
  // The operation found in the catalogue, run now that the token holds its scope.
  const filed = await client.callTool({
    name: 'run_write_operation',
    arguments: { operation: 'course_categories_create', arguments: category },
  })
  expect(filed.isError).toBeFalsy()
  expect(filed.structuredContent).toMatchObject({ object: 'course_category', name: category.name })
  const widened = (await client.listTools()).tools.length
  await client.close()
  expect(errors).toEqual([])
  await page.context().close()

  // 5. A dead access token: the 401 makes the client refresh, and the call goes through.
  const held = provider.tokens()
  if (!held) throw new Error('no tokens after the write')
  provider.saved = { ...held, access_token: 'pat_expired_or_revoked' }
  const again = newClient()
  await again.connect(transport())
  expect((await again.listTools()).tools.length).toBe(widened)
  expect(provider.tokens()?.access_token).not.toBe('pat_expired_or_revoked')
  await again.close()
  expect([...versions]).toEqual([MODERN])
}

describe('an MCP agent of 2026-07-28 from nothing but <issuer>/mcp', { timeout: 60_000 }, () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer()
  })
  afterAll(async () => {
    await server?.close()
  })

  it('is challenged, registers, gets consent in Chromium, reads, is stepped up, writes and refreshes', async () => {
    await agentLife(server.issuer, await createPerson(server, 'editor'))
  })
})

describe.skipIf(needsPostgres('two instances on one database (test/browser/mcp-agent-2026)'))(
  'an MCP agent of 2026-07-28 served by two instances on one PostgreSQL, by turns',
  { timeout: 90_000 },
  () => {
    let cluster: Instances
    let balancer: RoundRobin
    beforeAll(async () => {
      cluster = await startInstances(2)
      balancer = await startRoundRobin(
        Number(new URL(cluster.issuer).port),
        cluster.servers.map((s) => s.url),
      )
    })
    afterAll(async () => {
      await balancer?.close()
      await cluster?.stop()
    })

    it('lives the same life, each request on the other instance than the one before', async () => {
      await agentLife(cluster.issuer, await cluster.person('editor'))
      expect(Math.min(...balancer.served)).toBeGreaterThan(10)
    })
  },
)
