import { randomBytes } from 'node:crypto'
import type { Clock } from '../../src/platform/clock.js'
import { digest } from '../../src/platform/crypto.js'
import type { User } from '../../src/storage/users.js'
import { createPerson, createPkce, registerTestClient, type TestClient } from './flow.js'
import { formInit, type Json, readJson } from './http.js'
import type { TestServer } from './server.js'

export const TOKEN = '/api/oauth/token'
export const USERINFO = '/api/oauth/userinfo'

/** A clock the test moves by hand; pass it to startTestServer({ clock }). */
export interface TestClock extends Clock {
  advance(ms: number): void
}

export function createTestClock(start = Date.now()): TestClock {
  let now = start
  return {
    now: () => now,
    advance: (ms) => {
      now += ms
    },
  }
}

/** An authorization code minted straight into the database, as consent would. */
export interface MintedCode {
  readonly code: string
  readonly verifier: string
  readonly redirectUri: string
  readonly grantId: string
  readonly client: TestClient
  readonly user: User
}

export interface MintOptions {
  readonly scope?: string
  readonly resource?: string
  readonly nonce?: string
  /** The redirect URI the authorization request used; defaults to the client's first. */
  readonly redirectUri?: string
  /** When the person signed in, epoch ms; defaults to now. */
  readonly authTime?: number
  readonly lifetimeMs?: number
}

/**
 * Stores a grant and a code for it through the grant store, bypassing the browser flow: a
 * random code (only its digest stored) with a real S256 challenge of a random verifier.
 */
export async function mintCode(
  server: TestServer,
  client: TestClient,
  user: User,
  options: MintOptions = {},
): Promise<MintedCode> {
  const { deps } = server
  const now = deps.clock.now()
  const code = `pac_${randomBytes(32).toString('base64url')}`
  const pkce = createPkce()
  const grantId = deps.random.id('grt')
  const scope = options.scope ?? 'openid profile email courses:read'
  const resource = options.resource ?? server.issuer
  const redirectUri = options.redirectUri ?? client.redirectUri
  await deps.grants.insertGrantWithCode(
    {
      id: grantId,
      client_id: client.clientId,
      user_id: user.id,
      scope,
      resource,
      created_at: now,
      last_used_at: null,
      expires_at: now + deps.config.lifetimes.refreshToken * 1000,
      revoked_at: null,
    },
    {
      code_digest: digest(code),
      grant_id: grantId,
      client_id: client.clientId,
      user_id: user.id,
      redirect_uri: redirectUri,
      code_challenge: pkce.challenge,
      scope,
      resource,
      nonce: options.nonce ?? null,
      auth_time: options.authTime ?? now,
      created_at: now,
      expires_at: now + (options.lifetimeMs ?? deps.config.lifetimes.authorizationCode * 1000),
      consumed_at: null,
    },
  )
  // As the consent decision does when it issues a code: the client has been used.
  const stored = await deps.clients.find(client.clientId)
  if (stored) await deps.clients.touch(stored, now)
  return { code, verifier: pkce.verifier, redirectUri, grantId, client, user }
}

/** The form fields of a correct code exchange for a minted code, with overrides. */
export function codeFields(
  minted: MintedCode,
  extra: Record<string, string | readonly string[]> = {},
): Record<string, string | readonly string[]> {
  return {
    grant_type: 'authorization_code',
    code: minted.code,
    redirect_uri: minted.redirectUri,
    client_id: minted.client.clientId,
    code_verifier: minted.verifier,
    ...(minted.client.clientSecret !== undefined && { client_secret: minted.client.clientSecret }),
    ...extra,
  }
}

/** POSTs a form to the token endpoint. */
export function postToken(
  server: TestServer,
  fields: Record<string, string | readonly string[]>,
): Promise<Response> {
  return server.fetch(TOKEN, formInit(fields))
}

/** The fields of a refresh request for a client. */
export function refreshFields(
  client: TestClient,
  refreshToken: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    client_id: client.clientId,
    ...(client.clientSecret !== undefined && { client_secret: client.clientSecret }),
    ...extra,
  }
}

/** Calls userinfo with a bearer token. */
export function getUserinfo(server: TestServer, accessToken: string): Promise<Response> {
  return server.fetch(USERINFO, { headers: { authorization: `Bearer ${accessToken}` } })
}

export interface IssuedForTest {
  readonly client: TestClient
  readonly user: User
  readonly minted: MintedCode
  readonly tokens: Json
}

/**
 * A person, a freshly registered client and tokens from a code exchange: the starting point
 * of most token and userinfo tests.
 */
export async function issueTestTokens(
  server: TestServer,
  options: MintOptions & { readonly metadata?: Record<string, unknown> } = {},
): Promise<IssuedForTest> {
  const client = await registerTestClient(server, options.metadata)
  const { user } = await createPerson(server)
  const minted = await mintCode(server, client, user, options)
  const response = await postToken(server, codeFields(minted))
  const tokens = await readJson(response)
  if (response.status !== 200) throw new Error(`code exchange failed: ${JSON.stringify(tokens)}`)
  return { client, user, minted, tokens }
}

export { createPerson, registerTestClient, type TestClient }
