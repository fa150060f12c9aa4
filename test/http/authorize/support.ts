import { expect } from 'vitest'
import { createIntegration } from '../../../src/oauth/registration/register-client.js'
import type { Clock } from '../../../src/platform/clock.js'
import { digest } from '../../../src/platform/crypto.js'
import {
  authorizePath,
  Browser,
  createPkce,
  formField,
  type Pkce,
  type TestClient,
  type TestPerson,
} from '../../support/flow.js'
import type { TestServer } from '../../support/server.js'

/** A clock the test moves by hand; it starts at the real time. */
export class TestClock implements Clock {
  private current = Date.now()

  now(): number {
    return this.current
  }

  advance(ms: number): void {
    this.current += ms
  }
}

/** Registers an operator's integration directly against the server's dependencies. */
export async function createIntegrationClient(
  server: TestServer,
  options: { name?: string; redirectUris?: readonly string[]; confidential?: boolean } = {},
): Promise<TestClient> {
  const redirectUris = options.redirectUris ?? ['https://tool.example.com/callback']
  const { client, clientSecret } = await createIntegration(server.deps, {
    name: options.name ?? 'School integration',
    redirectUris,
    confidential: options.confidential ?? false,
  })
  return {
    clientId: client.clientId,
    redirectUri: redirectUris[0] ?? '',
    ...(clientSecret ? { clientSecret } : {}),
  }
}

/** Signs a browser in on the sign-in page (optionally continuing a pending request). */
export async function signIn(
  browser: Browser,
  person: Pick<TestPerson, 'email' | 'password'>,
  loginPath = '/login',
): Promise<Response> {
  const page = await (await browser.request(loginPath)).text()
  const request = formField(page, 'request')
  return browser.post('/login', {
    csrf: formField(page, 'csrf') ?? '',
    ...(request ? { request } : {}),
    email: person.email,
    password: person.password,
  })
}

/** The Location header of a response, which must be there. */
export function locationOf(response: Response): string {
  const location = response.headers.get('location')
  expect(location, `status ${response.status}: expected a redirect`).not.toBeNull()
  return location ?? ''
}

/** The redirect to the client as a URL (absolute). */
export function clientRedirect(response: Response): URL {
  expect(response.status).toBe(303)
  return new URL(locationOf(response))
}

/** The pending request id from a redirect to the sign-in page. */
export function requestIdFromLogin(response: Response): string {
  expect(response.status).toBe(303)
  const location = new URL(locationOf(response), 'http://x')
  expect(location.pathname).toBe('/login')
  return location.searchParams.get('request') ?? ''
}

/** Asserts an HTML error page (never a redirect) and returns its text. */
export async function expectErrorPage(response: Response, status = 400): Promise<string> {
  expect(response.status).toBe(status)
  expect(response.headers.get('location')).toBeNull()
  expect(response.headers.get('content-type')).toMatch(/^text\/html/)
  return response.text()
}

export interface ConsentForm {
  readonly page: string
  readonly request: string
  readonly csrf: string
}

/** Reads the decision form of a consent page. */
export async function consentForm(response: Response): Promise<ConsentForm> {
  expect(response.status).toBe(200)
  const page = await response.text()
  expect(page).toContain('action="/oauth/authorize/decision"')
  return { page, request: formField(page, 'request') ?? '', csrf: formField(page, 'csrf') ?? '' }
}

/**
 * Starts an authorization in `browser` and goes through sign-in (when asked) to the consent
 * page, which it returns. The browser may already be signed in.
 */
export async function openConsent(
  browser: Browser,
  client: TestClient,
  person: TestPerson,
  extra: Record<string, string> = {},
  pkce: Pkce = createPkce(),
): Promise<ConsentForm> {
  let response = await browser.request(authorizePath(client, pkce, extra))
  if (response.status === 303 && locationOf(response).startsWith('/login')) {
    response = await signIn(browser, person, locationOf(response))
    expect(response.status).toBe(303)
    response = await browser.request(locationOf(response))
  }
  return consentForm(response)
}

/** Posts the decision form. */
export function decide(
  browser: Browser,
  form: Pick<ConsentForm, 'request' | 'csrf'>,
  decision: 'approve' | 'deny' = 'approve',
): Promise<Response> {
  return browser.post('/oauth/authorize/decision', {
    request: form.request,
    csrf: form.csrf,
    decision,
  })
}

/** A browser that is signed in as `person`. */
export async function signedInBrowser(server: TestServer, person: TestPerson): Promise<Browser> {
  const browser = new Browser(server)
  const response = await signIn(browser, person)
  expect(response.status).toBe(303)
  return browser
}

/** The stored row of an authorization code, found by its digest. */
export async function codeRow(server: TestServer, code: string) {
  return server.deps.database.db
    .selectFrom('authorization_codes')
    .selectAll()
    .where('code_digest', '=', digest(code))
    .executeTakeFirst()
}

/** Asserts an OAuth error redirect to the client, with description, state and iss. */
export function expectErrorRedirect(
  response: Response,
  server: TestServer,
  client: TestClient,
  error: string,
  state: string | undefined,
): URL {
  const location = clientRedirect(response)
  expect(`${location.origin}${location.pathname}`).toBe(client.redirectUri)
  expect(location.searchParams.get('error')).toBe(error)
  expect(location.searchParams.get('error_description')).toBeTruthy()
  expect(location.searchParams.get('code')).toBeNull()
  expect(location.searchParams.get('iss')).toBe(server.issuer)
  expect(location.searchParams.get('state')).toBe(state ?? null)
  return location
}
