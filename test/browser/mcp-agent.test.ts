import {
  auth,
  type OAuthClientProvider,
  UnauthorizedError,
} from '@modelcontextprotocol/sdk/client/auth.js'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { collectPageErrors, launchBrowser, newPage } from '../support/browser.js'
import {
  type DocumentServer,
  makeCertificate,
  startDocumentServer,
} from '../support/document-server.js'
import { createPerson, type TestPerson } from '../support/flow.js'
import { type Instances, startInstances } from '../support/instances.js'
import { type RoundRobin, startRoundRobin } from '../support/round-robin.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { needsPostgres } from '../support/skips.js'
import { parseChallenge } from '../support/www-authenticate.js'

// The whole life of an agent, from nothing but <issuer>/mcp, with the official SDK client:
// on one server (SQLite or PostgreSQL, as the run's database), once registering itself
// (RFC 7591) and once identified by a Client ID Metadata Document that the test's HTTPS
// server publishes; and on two instances sharing one PostgreSQL database behind a
// round-robin balancer, where no two consecutive requests reach the same instance.

let browser: Browser
beforeAll(async () => {
  browser = await launchBrowser()
})
afterAll(async () => {
  await browser?.close()
})

/**
 * How the agent identifies itself: it registers (RFC 7591) with the name `name`, or its
 * client_id is the URL of a metadata document naming it `name`, published on `host`.
 */
type Identity =
  | { readonly by: 'registration'; readonly name: string }
  | {
      readonly by: 'metadata_document'
      readonly name: string
      readonly url: string
      readonly host: string
    }

/** What an agent keeps between runs, in memory: its registration, tokens and PKCE verifier. */
class AgentProvider implements OAuthClientProvider {
  readonly redirectUrl = 'http://127.0.0.1:49231/callback'
  client?: OAuthClientInformationMixed
  saved?: OAuthTokens
  verifier = ''
  authorizationUrl?: URL
  /** Set only for an agent identified by a metadata document: the SDK then registers nothing. */
  readonly clientMetadataUrl: string | undefined
  readonly identity: Identity
  constructor(identity: Identity) {
    this.identity = identity
    this.clientMetadataUrl = identity.by === 'metadata_document' ? identity.url : undefined
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.identity.name,
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

/**
 * The person signs in (unless their session is still open), sees who asks (the agent's name,
 * the host of its document if it has one, and the warning for a tool nobody reviewed) and
 * approves; the code.
 */
async function approve(
  page: Page,
  provider: AgentProvider,
  person: TestPerson,
  scope: string,
): Promise<string> {
  const url = provider.authorizationUrl
  if (!url) throw new Error('the SDK did not send the person to authorize')
  expect(url.searchParams.get('scope')?.split(' ')).toEqual(expect.arrayContaining([scope]))
  await page.goto(url.toString())
  if ((await page.locator('#email').count()) > 0) {
    await page.fill('#email', person.email)
    await page.fill('#password', person.password)
    await page.click('button[type=submit].primary')
  }
  await page.waitForSelector('form.decision')
  const { identity } = provider
  expect(await page.textContent('.client-name')).toBe(identity.name)
  const warning = await page.textContent('.warning')
  expect(warning).toContain('Unverified tool')
  if (identity.by === 'metadata_document') {
    expect(warning).toContain('described by a public document')
    expect(await page.textContent('.document-host strong')).toBe(identity.host)
  } else {
    expect(warning).toContain('registered itself')
    expect(await page.locator('.document-host').count()).toBe(0)
  }
  await page.click('button[name=decision][value=approve]')
  await page.waitForURL(`${provider.redirectUrl}**`)
  const code = new URL(page.url()).searchParams.get('code') ?? ''
  expect(code).not.toBe('')
  return code
}

const course = (title: string) => ({
  title,
  pricing_plans: [{ name: 'Free', type: 'free', price: { amount: 0, currency: 'USD' } }],
})

const registeredAgent: Identity = { by: 'registration', name: 'Test agent' }

/**
 * Challenge, registration (or none, for an agent identified by its metadata document),
 * consent in Chromium, a read tool, step-up to write (re-authorizing with the challenged
 * scopes, under the same client_id), a write with dry_run then for real, and a refresh.
 */
async function agentLife(
  issuer: string,
  person: TestPerson,
  identity: Identity = registeredAgent,
): Promise<void> {
  const provider = new AgentProvider(identity)
  const metadata = (await (
    await fetch(`${issuer}/.well-known/oauth-authorization-server`)
  ).json()) as { registration_endpoint: string; client_id_metadata_document_supported: boolean }
  expect(metadata.client_id_metadata_document_supported).toBe(true)
  /** Every request the agent made (the SDK's discovery, OAuth and MCP requests), in order. */
  const requests: string[] = []
  /** The challenges the agent was answered with, newest last. */
  const challenges: string[] = []
  const agentFetch = async (url: string | URL, init?: RequestInit) => {
    requests.push(`${init?.method ?? 'GET'} ${String(url)}`)
    const response = await fetch(url, init)
    const challenge = response.headers.get('www-authenticate')
    if (challenge) challenges.push(challenge)
    return response
  }
  const registrations = () =>
    requests.filter((r) => r === `POST ${metadata.registration_endpoint}`).length
  const transport = () =>
    new StreamableHTTPClientTransport(new URL(`${issuer}/mcp`), {
      authProvider: provider,
      fetch: agentFetch,
    })
  const connect = async () => {
    const client = new Client({ name: 'test-agent', version: '1.0.0' })
    await client.connect(transport())
    return client
  }

  // 1. The first request is challenged; the SDK discovers the metadata and registers, or
  // (seeing client_id_metadata_document_supported) uses its document's URL as client_id.
  const first = transport()
  const refused = await new Client({ name: 'test-agent', version: '1.0.0' })
    .connect(first)
    .catch((e: unknown) => e)
  expect(refused).toBeInstanceOf(UnauthorizedError)
  expect(provider.client?.client_id).toBeTruthy()
  if (identity.by === 'metadata_document') {
    expect(provider.client?.client_id).toBe(identity.url)
    expect(registrations()).toBe(0)
  } else {
    expect(registrations()).toBe(1)
  }
  const url = provider.authorizationUrl
  expect(url && url.origin + url.pathname).toBe(`${issuer}/oauth/authorize`)
  expect(url?.searchParams.get('resource')).toBe(`${issuer}/mcp`)
  expect(url?.searchParams.get('client_id')).toBe(provider.client?.client_id)

  // 2. The person signs in and approves in a real browser; the SDK exchanges the code.
  const page = await newPage(browser)
  const errors = collectPageErrors(page)
  await page.route(`${provider.redirectUrl}**`, (route) =>
    route.fulfill({ status: 200, contentType: 'text/plain', body: 'callback reached' }),
  )
  await first.finishAuth(await approve(page, provider, person, 'courses:read'))
  expect(provider.saved?.refresh_token).toBeTruthy()

  // 3. Tools: listed, and a read with a projection.
  let client = await connect()
  // The core surface, as the token allows: reads only (it holds no write scope); a write's
  // own tool is still called by name below, unlisted, and stepped up.
  const { tools } = await client.listTools()
  expect(tools.some((t) => t.name === 'courses_list')).toBe(true)
  expect(tools.some((t) => t.name === 'courses_create')).toBe(false)
  const list = await client.callTool({
    name: 'courses_list',
    arguments: { limit: 5, fields: ['title'] },
  })
  expect(list.isError).toBeFalsy()
  expect(list.structuredContent).toMatchObject({ object: 'list' })

  // 4. A write needs courses:write, which the token lacks and an editor may have: 403 with
  // the scopes to ask for. The SDK (1.32) first refreshes, which cannot widen a grant, then
  // gives up on the same challenge (typescript-sdk#2255); the agent then forgets its tokens
  // and authorizes again with the challenged scopes, as the MCP specification asks, with
  // the same registration (its registered `scope` is not a bound).
  const write = course(`Written by ${identity.name}`)
  const stepUp = await client
    .callTool({ name: 'courses_create', arguments: { ...write, dry_run: true } })
    .catch((e: unknown) => e)
  expect(stepUp).toBeInstanceOf(StreamableHTTPError)
  expect((stepUp as StreamableHTTPError).code).toBe(403)
  await client.close()
  const challenge = parseChallenge(challenges.at(-1) ?? null)
  expect(challenge.params.error).toBe('insufficient_scope')
  const scope = challenge.params.scope ?? ''
  expect(scope.split(' ')).toEqual(expect.arrayContaining(['courses:write', 'courses:read']))
  const firstClient = provider.client?.client_id
  provider.saved = undefined
  provider.authorizationUrl = undefined
  const resourceMetadataUrl = new URL(challenge.params.resource_metadata ?? '')
  expect(
    await auth(provider, {
      serverUrl: `${issuer}/mcp`,
      scope,
      resourceMetadataUrl,
      fetchFn: agentFetch,
    }),
  ).toBe('REDIRECT')
  expect(provider.clientInformation()?.client_id).toBe(firstClient)
  // (Read through a widened type: TypeScript keeps `undefined` from the reset above.)
  const reauthorization = provider.authorizationUrl as URL | undefined
  expect(reauthorization?.searchParams.get('client_id')).toBe(firstClient)
  await transport().finishAuth(await approve(page, provider, person, 'courses:write'))
  const granted = provider.tokens()?.scope ?? ''
  expect(granted.split(' ')).toEqual(expect.arrayContaining(['courses:write', 'courses:read']))

  // 5. The write, rehearsed then made; the record reads back.
  client = await connect()
  const count = async () =>
    (
      (
        await client.callTool({
          name: 'courses_list',
          arguments: { q: write.title, fields: ['title'] },
        })
      ).structuredContent as { total_count: number }
    ).total_count
  const dry = await client.callTool({
    name: 'courses_create',
    arguments: { ...write, dry_run: true },
  })
  expect(dry.isError).toBeFalsy()
  expect(dry.structuredContent).toMatchObject({ object: 'course', title: write.title })
  expect(await count()).toBe(0)
  const made = await client.callTool({
    name: 'courses_create',
    arguments: { ...write, idempotency_key: `agent-${identity.by}` },
  })
  expect(made.isError).toBeFalsy()
  const id = (made.structuredContent as { id: string }).id
  expect(await count()).toBe(1)
  const read = await client.callTool({ name: 'courses_get', arguments: { id } })
  expect(read.structuredContent).toMatchObject({ id, title: write.title })
  const widened = (await client.listTools()).tools
  expect(widened.some((t) => t.name === 'courses_create')).toBe(true)
  await client.close()
  expect(errors).toEqual([])
  await page.context().close()

  // 6. A dead access token: the 401 makes the SDK refresh, and the call goes through.
  const held = provider.tokens()
  if (!held) throw new Error('no tokens after the write')
  provider.saved = { ...held, access_token: 'pat_expired_or_revoked' }
  const again = await connect()
  expect((await again.listTools()).tools.length).toBe(widened.length)
  expect(provider.tokens()?.access_token).not.toBe('pat_expired_or_revoked')
  expect(provider.tokens()?.refresh_token).not.toBe(held.refresh_token)
  await again.close()
  // Registered once (or never), whatever the challenges, re-authorization and refresh.
  expect(registrations()).toBe(identity.by === 'metadata_document' ? 0 : 1)
  expect(provider.client?.client_id).toBe(firstClient)
}

describe('an MCP agent from nothing but <issuer>/mcp', { timeout: 60_000 }, () => {
  let server: TestServer
  let documents: DocumentServer
  beforeAll(async () => {
    // The metadata document's HTTPS server, with a certificate Portico is told to trust.
    documents = await startDocumentServer(await makeCertificate())
    server = await startTestServer({ outbound: { ca: documents.ca } })
  })
  afterAll(async () => {
    await server?.close()
    await documents?.close()
  })

  it('is challenged, registers, gets consent in Chromium, reads, is stepped up, writes and refreshes', async () => {
    await agentLife(server.issuer, await createPerson(server, 'editor'))
  })

  it('identified by its metadata document: registers nothing, and lives the same life under that client_id', async () => {
    const path = '/agent/client.json'
    const url = documents.url(path)
    documents.json(path, {
      client_id: url,
      client_name: 'Documented agent',
      client_uri: 'https://agent.example',
      // A port-less loopback callback, as agents publish it; the agent listens on any port.
      redirect_uris: ['http://127.0.0.1/callback'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    })
    const registeredBefore = server.logs.filter((l) => l.msg === 'client registered').length
    await agentLife(server.issuer, await createPerson(server, 'editor'), {
      by: 'metadata_document',
      name: 'Documented agent',
      url,
      host: `127.0.0.1:${documents.port}`,
    })
    expect(server.logs.filter((l) => l.msg === 'client registered')).toHaveLength(registeredBefore)
    expect(documents.hits(path)).toBeGreaterThan(0)
  })
})

describe.skipIf(needsPostgres('two instances on one database (test/browser/mcp-agent)'))(
  'an MCP agent served by two instances on one PostgreSQL, by turns',
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
