import { expect } from 'vitest'
import { addResourceServer } from '../../src/oauth/resource-servers.js'
import type { UserTable } from '../../src/storage/tables/oauth.js'
import {
  Browser,
  createPerson,
  formField,
  registerTestClient,
  runAuthorization,
  type TestClient,
  type TestPerson,
} from './flow.js'
import { codeFields, mintCode, postToken } from './grants.js'
import { formInit, type Json, readJson } from './http.js'
import type { TestServer } from './server.js'
import { type Challenge, parseChallenge } from './www-authenticate.js'

/** Helpers for the token lifecycle: revocation, introspection and the bearer-protected API. */

export const REVOKE = '/api/oauth/revoke'
export const INTROSPECT = '/api/oauth/introspect'
export const API = '/api/v1'
export const ACCOUNT = '/api/v1/account'

/** The credentials a caller of the revocation or introspection endpoint sends. */
export interface Credentials {
  readonly clientId: string
  readonly clientSecret?: string
}

function credentialFields(caller: Credentials): Record<string, string> {
  return {
    client_id: caller.clientId,
    ...(caller.clientSecret !== undefined && { client_secret: caller.clientSecret }),
  }
}

/** POSTs a revocation request (RFC 7009 §2.1). */
export function revoke(
  server: TestServer,
  caller: Credentials,
  token: string | undefined,
  extra: Record<string, string> = {},
): Promise<Response> {
  return server.fetch(
    REVOKE,
    formInit({
      ...credentialFields(caller),
      ...(token !== undefined && { token }),
      ...extra,
    }),
  )
}

/** POSTs an introspection request (RFC 7662 §2.1) and returns the response. */
export function postIntrospect(
  server: TestServer,
  caller: Credentials,
  token: string | undefined,
  extra: Record<string, string> = {},
): Promise<Response> {
  return server.fetch(
    INTROSPECT,
    formInit({
      ...credentialFields(caller),
      ...(token !== undefined && { token }),
      ...extra,
    }),
  )
}

/** Introspects a token and returns the JSON answer, which must be a 200. */
export async function introspect(
  server: TestServer,
  caller: Credentials,
  token: string,
  extra: Record<string, string> = {},
): Promise<Json> {
  const response = await postIntrospect(server, caller, token, extra)
  expect(response.status).toBe(200)
  return readJson(response)
}

/** Calls the business API with an optional bearer token (or any raw Authorization value). */
export function callApi(
  server: TestServer,
  path: string,
  options: { token?: string; authorization?: string; init?: RequestInit } = {},
): Promise<Response> {
  const headers = new Headers(options.init?.headers)
  if (options.token !== undefined) headers.set('authorization', `Bearer ${options.token}`)
  if (options.authorization !== undefined) headers.set('authorization', options.authorization)
  return server.fetch(path, { ...options.init, headers })
}

/** Tokens issued to a client for a person, with what they were issued under. */
export interface Issued {
  readonly client: TestClient
  readonly person: TestPerson
  readonly grantId: string
  readonly accessToken: string
  readonly refreshToken: string
  readonly scope: string
}

export interface IssueOptions {
  readonly role?: UserTable['role']
  readonly scope?: string
  readonly resource?: string
  readonly client?: TestClient
  readonly person?: TestPerson
  /** Registration metadata for a new client. */
  readonly metadata?: Record<string, unknown>
}

/**
 * Tokens from a code exchange at the real token endpoint, for a code stored straight into the
 * database (fast; the consent pages are exercised by {@link issueThroughConsent}).
 */
export async function issue(server: TestServer, options: IssueOptions = {}): Promise<Issued> {
  const client = options.client ?? (await registerTestClient(server, options.metadata))
  const person = options.person ?? (await createPerson(server, options.role ?? 'owner'))
  const minted = await mintCode(server, client, person.user, {
    scope: options.scope ?? 'openid account:read account:write courses:read',
    ...(options.resource !== undefined && { resource: options.resource }),
  })
  const response = await postToken(server, codeFields(minted))
  const body = await readJson(response)
  if (response.status !== 200) throw new Error(`code exchange failed: ${JSON.stringify(body)}`)
  return {
    client,
    person,
    grantId: minted.grantId,
    accessToken: body.access_token,
    refreshToken: body.refresh_token,
    scope: body.scope,
  }
}

/**
 * Tokens through the whole browser flow: authorize, sign in, approve on the consent page,
 * then exchange the code (sending `resource` again, as RFC 8707 §2.2 allows).
 */
export async function issueThroughConsent(
  server: TestServer,
  options: IssueOptions & { readonly browser?: Browser } = {},
): Promise<Issued> {
  const client = options.client ?? (await registerTestClient(server, options.metadata))
  const person = options.person ?? (await createPerson(server, options.role ?? 'owner'))
  const scope = options.scope ?? 'openid account:read account:write courses:read'
  const flow = await runAuthorization(server, client, person, {
    ...(options.browser && { browser: options.browser }),
    extra: { scope, ...(options.resource !== undefined && { resource: options.resource }) },
  })
  if (!flow.code) throw new Error(`no code: ${flow.location.toString()}`)
  const response = await postToken(server, {
    grant_type: 'authorization_code',
    code: flow.code,
    redirect_uri: client.redirectUri,
    client_id: client.clientId,
    code_verifier: flow.pkce.verifier,
    ...(client.clientSecret !== undefined && { client_secret: client.clientSecret }),
    ...(options.resource !== undefined && { resource: options.resource }),
  })
  const body = await readJson(response)
  if (response.status !== 200) throw new Error(`code exchange failed: ${JSON.stringify(body)}`)
  const grant = await server.deps.database.db
    .selectFrom('grants')
    .select('id')
    .where('client_id', '=', client.clientId)
    .where('user_id', '=', person.user.id)
    .orderBy('created_at', 'desc')
    .executeTakeFirstOrThrow()
  return {
    client,
    person,
    grantId: grant.id,
    accessToken: body.access_token,
    refreshToken: body.refresh_token,
    scope: body.scope,
  }
}

/** Registers a resource server the way `portico resources add` does; returns its credentials. */
export async function registerResourceServer(
  server: TestServer,
  identifier: string,
  name = 'Team API',
): Promise<Credentials & { readonly identifier: string }> {
  const { server: rs, secret } = await addResourceServer(
    { ...server.deps, issuer: server.issuer },
    { identifier, name },
  )
  return { clientId: rs.id, clientSecret: secret, identifier: rs.identifier }
}

/** Changes a person's role straight in the database, as an operator would. */
export async function setRole(
  server: TestServer,
  userId: string,
  role: UserTable['role'],
): Promise<void> {
  await server.deps.database.db
    .updateTable('users')
    .set({ role })
    .where('id', '=', userId)
    .execute()
}

/**
 * Asserts a bearer failure of the API: the status, an RFC 9457 body, and a `WWW-Authenticate`
 * challenge read parameter by parameter. Returns the parsed challenge and body.
 */
export async function expectBearerFailure(
  server: TestServer,
  response: Response,
  expected:
    | { status: 401; error?: undefined }
    | { status: 401; error: 'invalid_token' }
    | { status: 403; error: 'insufficient_scope'; scope: string },
): Promise<{ challenge: Challenge; body: Json }> {
  expect(response.status).toBe(expected.status)
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/)
  const challenge = parseChallenge(response.headers.get('www-authenticate'))
  expect(challenge.scheme).toBe('Bearer')
  const { params } = challenge
  expect(params.resource_metadata).toBe(`${server.issuer}/.well-known/oauth-protected-resource`)
  const body = await readJson(response)
  expect(body.status).toBe(expected.status)
  expect(typeof body.title).toBe('string')
  expect(typeof body.type).toBe('string')
  if (expected.error === undefined) {
    // RFC 6750 §3.1: a request without credentials gets no error code.
    expect(Object.keys(params)).toEqual(['resource_metadata'])
    expect(body.error).toBeUndefined()
  } else {
    expect(params.error).toBe(expected.error)
    expect(body.error).toBe(expected.error)
    expect(body.code).toBe(expected.error)
    if (expected.error === 'invalid_token') {
      expect(params.error_description).toBeTruthy()
      expect(params.error_description).toMatch(/^[\x20\x21\x23-\x5B\x5D-\x7E]+$/)
      expect(Object.keys(params).sort()).toEqual(
        ['error', 'error_description', 'resource_metadata'].sort(),
      )
    } else {
      expect(params.scope).toBe(expected.scope)
      expect(Object.keys(params).sort()).toEqual(['error', 'resource_metadata', 'scope'])
    }
  }
  return { challenge, body }
}

/** A browser signed in on the sign-in page, without any authorization request. */
export async function signIn(server: TestServer, person: TestPerson): Promise<Browser> {
  const browser = new Browser(server)
  const page = await (await browser.request('/login')).text()
  const response = await browser.post('/login', {
    csrf: formField(page, 'csrf') ?? '',
    email: person.email,
    password: person.password,
  })
  if (response.status !== 303) throw new Error(`sign-in failed: ${response.status}`)
  return browser
}

/** The database URL a CLI process needs to work on the same database as the server. */
export function databaseUrlOf(server: TestServer): string {
  const database = server.deps.config.database
  return database.dialect === 'sqlite' ? `sqlite:${database.file}` : database.url
}
