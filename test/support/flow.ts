import { createHash, randomBytes } from 'node:crypto'
import { hashPassword } from '../../src/platform/passwords.js'
import type { UserTable } from '../../src/storage/tables/oauth.js'
import type { User } from '../../src/storage/users.js'
import { jsonInit, readJson } from './http.js'
import type { TestServer } from './server.js'

/** What the flow helpers send requests through: a test server, or several instances behind one issuer. */
export type Target = Pick<TestServer, 'fetch'>

/** A cookie jar for one simulated browser. */
export class Browser {
  readonly cookies = new Map<string, string>()
  readonly server: Target

  constructor(server: Target) {
    this.server = server
  }

  /** Sends a request with the jar's cookies, stores what comes back, never follows redirects. */
  async request(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers)
    if (this.cookies.size > 0)
      headers.set('cookie', [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '))
    const response = await this.server.fetch(path, { ...init, headers, redirect: 'manual' })
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';')
      const [name = '', value = ''] = pair.split('=')
      if (/max-age=0/i.test(line) || value === '') this.cookies.delete(name)
      else this.cookies.set(name, value)
    }
    return response
  }

  /** POSTs a form, as the pages do. */
  post(path: string, fields: Record<string, string>): Promise<Response> {
    return this.request(path, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    })
  }
}

/** Reads the value of a hidden form field from a page. */
export function formField(page: string, name: string): string | undefined {
  const match = new RegExp(`name="${name}" value="([^"]*)"`).exec(page)
  return match?.[1]?.replaceAll('&amp;', '&')
}

export interface TestPerson {
  readonly user: User
  readonly email: string
  readonly password: string
}

let counter = 0

/** Creates an account directly in the database. */
export async function createPerson(
  server: TestServer,
  role: UserTable['role'] = 'owner',
  password = 'correct horse battery staple',
): Promise<TestPerson> {
  counter += 1
  const email = `person${counter}-${randomBytes(3).toString('hex')}@example.com`
  const user = await server.deps.users.insert({
    id: server.deps.random.id('usr'),
    email,
    name: `Test Person ${counter}`,
    role,
    passwordHash: await hashPassword(password),
    now: server.deps.clock.now(),
  })
  return { user, email, password }
}

export interface TestClient {
  readonly clientId: string
  readonly clientSecret?: string
  readonly redirectUri: string
}

/** Registers a client through the registration endpoint. */
export async function registerTestClient(
  server: Target,
  metadata: Record<string, unknown> = {},
): Promise<TestClient> {
  const redirectUri = 'http://127.0.0.1:49152/callback'
  const response = await server.fetch(
    '/api/oauth/register',
    jsonInit({ redirect_uris: [redirectUri], client_name: 'Test tool', ...metadata }),
  )
  if (response.status !== 201)
    throw new Error(`registration failed: ${response.status} ${await response.text()}`)
  const body = await readJson(response)
  return {
    clientId: body.client_id,
    clientSecret: body.client_secret,
    redirectUri: body.redirect_uris[0],
  }
}

export interface Pkce {
  readonly verifier: string
  readonly challenge: string
}

export function createPkce(): Pkce {
  const verifier = randomBytes(32).toString('base64url')
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') }
}

/** The authorization URL path for a client, with PKCE and a random state. */
export function authorizePath(
  client: TestClient,
  pkce: Pkce,
  extra: Record<string, string> = {},
): string {
  const params = new URLSearchParams({
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: client.redirectUri,
    scope: 'openid profile email courses:read',
    state: randomBytes(8).toString('hex'),
    code_challenge: pkce.challenge,
    code_challenge_method: 'S256',
    ...extra,
  })
  return `/oauth/authorize?${params}`
}

export interface FlowResult {
  /** Where the browser was finally sent: the client's redirect URI with its parameters. */
  readonly location: URL
  readonly code: string | undefined
  readonly pkce: Pkce
  readonly browser: Browser
}

/**
 * Runs the authorization flow over HTTP as a browser would: authorize, sign in, approve (or
 * deny), and returns the final redirect to the client.
 */
export async function runAuthorization(
  server: Target,
  client: TestClient,
  person: TestPerson,
  options: {
    extra?: Record<string, string>
    decision?: 'approve' | 'deny'
    browser?: Browser
    pkce?: Pkce
  } = {},
): Promise<FlowResult> {
  const browser = options.browser ?? new Browser(server)
  const pkce = options.pkce ?? createPkce()
  let response = await browser.request(authorizePath(client, pkce, options.extra))
  if (response.status === 303 && response.headers.get('location')?.startsWith('/login')) {
    const loginPath = response.headers.get('location') ?? ''
    const page = await (await browser.request(loginPath)).text()
    const request = formField(page, 'request')
    response = await browser.post('/login', {
      csrf: formField(page, 'csrf') ?? '',
      ...(request ? { request } : {}),
      email: person.email,
      password: person.password,
    })
    if (response.status !== 303) throw new Error(`sign-in failed: ${response.status}`)
    response = await browser.request(response.headers.get('location') ?? '')
  }
  if (response.status === 200) {
    const page = await response.text()
    response = await browser.post('/oauth/authorize/decision', {
      request: formField(page, 'request') ?? '',
      csrf: formField(page, 'csrf') ?? '',
      decision: options.decision ?? 'approve',
    })
  }
  const location = new URL(response.headers.get('location') ?? 'about:blank')
  return { location, code: location.searchParams.get('code') ?? undefined, pkce, browser }
}
