import { createHash } from 'node:crypto'
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runAuthorization } from '../../support/flow.js'
import {
  codeFields,
  createPerson,
  getUserinfo,
  issueTestTokens,
  mintCode,
  postToken,
  registerTestClient,
} from '../../support/grants.js'
import { readJson } from '../../support/http.js'
import { startTestServer, type TestServer } from '../../support/server.js'

let server: TestServer
let jwks: ReturnType<typeof createRemoteJWKSet>
beforeAll(async () => {
  server = await startTestServer()
  jwks = createRemoteJWKSet(new URL(`${server.issuer}/.well-known/jwks.json`))
})
afterAll(async () => {
  await server?.close()
})

function expectedAtHash(accessToken: string): string {
  return createHash('sha256').update(accessToken).digest().subarray(0, 16).toString('base64url')
}

describe('authorization_code grant: the response', () => {
  it('answers access_token, token_type Bearer, expires_in, scope, refresh_token and id_token, not cached', async () => {
    const client = await registerTestClient(server)
    const { user } = await createPerson(server)
    const authTime = server.deps.clock.now() - 30_000
    const minted = await mintCode(server, client, user, { nonce: 'n-0S6_WzA2Mj', authTime })
    const response = await postToken(server, codeFields(minted))
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/^application\/json/)
    expect(response.headers.get('cache-control')).toBe('no-store')
    expect(response.headers.get('pragma')).toBe('no-cache')
    const body = await readJson(response)
    expect(Object.keys(body).sort()).toEqual(
      ['access_token', 'expires_in', 'id_token', 'refresh_token', 'scope', 'token_type'].sort(),
    )
    expect(body.access_token).toMatch(/^pat_[A-Za-z0-9_-]{43}$/)
    expect(body.refresh_token).toMatch(/^prt_[A-Za-z0-9_-]{43}$/)
    expect(body.token_type).toBe('Bearer')
    expect(body.expires_in).toBe(server.deps.config.lifetimes.accessToken)
    expect(body.scope).toBe('openid profile email courses:read')

    const { payload, protectedHeader } = await jwtVerify(body.id_token, jwks, {
      issuer: server.issuer,
      audience: client.clientId,
      algorithms: ['RS256'],
    })
    expect(protectedHeader.alg).toBe('RS256')
    expect(payload.iss).toBe(server.issuer)
    expect(payload.sub).toBe(user.id)
    expect(payload.aud).toBe(client.clientId)
    expect(payload.nonce).toBe('n-0S6_WzA2Mj')
    expect(payload.auth_time).toBe(Math.floor(authTime / 1000))
    expect(payload.at_hash).toBe(expectedAtHash(body.access_token))
    expect(payload.exp! - payload.iat!).toBe(server.deps.config.lifetimes.idToken)
    expect(Math.abs(payload.iat! - Date.now() / 1000)).toBeLessThan(10)
  })

  it('stores only digests of the tokens', async () => {
    const { tokens } = await issueTestTokens(server)
    const { db } = server.deps.database
    const access = await db.selectFrom('access_tokens').select('token_digest').execute()
    const refresh = await db.selectFrom('refresh_tokens').select('token_digest').execute()
    const stored = JSON.stringify([access, refresh])
    expect(stored).not.toContain(tokens.access_token.slice(4))
    expect(stored).not.toContain(tokens.refresh_token.slice(4))
    expect(server.logText()).not.toContain(tokens.access_token.slice(4))
  })

  it('binds the access token to the resource of the grant (audience)', async () => {
    const { tokens, minted } = await issueTestTokens(server)
    const live = await server.deps.grants.findLiveAccessToken(
      createHash('sha256').update(tokens.access_token).digest('base64url'),
      Date.now(),
    )
    expect(live?.token.audience).toBe(server.issuer)
    expect(live?.token.grant_id).toBe(minted.grantId)
  })

  it('omits nonce from the ID token when the authorization request had none', async () => {
    const { tokens } = await issueTestTokens(server)
    const { payload } = await jwtVerify(tokens.id_token, jwks, { issuer: server.issuer })
    expect(payload).not.toHaveProperty('nonce')
  })

  it('signs the ID token with ES256 for a client that registered id_token_signed_response_alg ES256', async () => {
    const { tokens, client } = await issueTestTokens(server, {
      metadata: { id_token_signed_response_alg: 'ES256' },
    })
    expect(decodeProtectedHeader(tokens.id_token).alg).toBe('ES256')
    const { payload } = await jwtVerify(tokens.id_token, jwks, {
      issuer: server.issuer,
      audience: client.clientId,
      algorithms: ['ES256'],
    })
    expect(payload.at_hash).toBe(expectedAtHash(tokens.access_token))
  })

  it('issues no id_token when openid was not granted', async () => {
    const { tokens } = await issueTestTokens(server, { scope: 'courses:read' })
    expect(tokens).not.toHaveProperty('id_token')
    expect(tokens.scope).toBe('courses:read')
  })

  it('issues no refresh_token to a client not registered for the refresh_token grant', async () => {
    const { tokens } = await issueTestTokens(server, {
      metadata: { grant_types: ['authorization_code'] },
    })
    expect(tokens).not.toHaveProperty('refresh_token')
    expect(tokens.access_token).toMatch(/^pat_/)
  })

  it('issues tokens that work at userinfo', async () => {
    const { tokens, user } = await issueTestTokens(server)
    const response = await getUserinfo(server, tokens.access_token)
    expect(response.status).toBe(200)
    expect((await readJson(response)).sub).toBe(user.id)
  })
})

describe('client authentication at the token endpoint', () => {
  async function confidential() {
    const client = await registerTestClient(server, {
      token_endpoint_auth_method: 'client_secret_post',
    })
    const { user } = await createPerson(server)
    return { client, minted: await mintCode(server, client, user) }
  }

  it('accepts a confidential client with its client_secret', async () => {
    const { minted } = await confidential()
    expect(minted.client.clientSecret).toBeTruthy()
    expect((await postToken(server, codeFields(minted))).status).toBe(200)
  })

  it('refuses a missing, wrong or different-length secret with 401 invalid_client and one description', async () => {
    const { minted } = await confidential()
    const secret = minted.client.clientSecret ?? ''
    const wrong = `${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`
    const attempts: Record<string, string | undefined>[] = [
      { client_secret: undefined },
      { client_secret: wrong },
      { client_secret: `${secret}x` },
      { client_secret: secret.slice(0, 5) },
    ]
    const descriptions = new Set<string>()
    for (const attempt of attempts) {
      const fields = { ...codeFields(minted) } as Record<string, string>
      if (attempt.client_secret === undefined) delete fields.client_secret
      else fields.client_secret = attempt.client_secret
      const response = await postToken(server, fields)
      expect(response.status).toBe(401)
      expect(response.headers.get('cache-control')).toBe('no-store')
      const body = await readJson(response)
      expect(body.error).toBe('invalid_client')
      descriptions.add(body.error_description)
    }
    // An unknown client and a missing client_id get the same answer too.
    for (const fields of [
      { ...codeFields(minted), client_id: 'cli_unknown' },
      (({ client_id: _, ...rest }) => rest)(codeFields(minted)),
    ]) {
      const response = await postToken(server, fields)
      expect(response.status).toBe(401)
      descriptions.add((await readJson(response)).error_description)
    }
    expect(descriptions.size).toBe(1)
    // The code was never touched, so the right secret still redeems it.
    expect((await postToken(server, codeFields(minted))).status).toBe(200)
  })

  it('refuses a public client that sends a client_secret (401 invalid_client)', async () => {
    const client = await registerTestClient(server)
    const { user } = await createPerson(server)
    const minted = await mintCode(server, client, user)
    const response = await postToken(server, codeFields(minted, { client_secret: 'anything' }))
    expect(response.status).toBe(401)
    expect((await readJson(response)).error).toBe('invalid_client')
  })

  it('never logs the client secret', async () => {
    const { minted } = await confidential()
    await postToken(server, codeFields(minted, { client_secret: 'wrong-secret-value-123' }))
    expect(server.logText()).not.toContain(minted.client.clientSecret)
    expect(server.logText()).not.toContain('wrong-secret-value-123')
  })
})

describe('codes from the authorization endpoint', () => {
  it('exchanges a code obtained through sign-in and consent, nonce included', async () => {
    const client = await registerTestClient(server)
    const person = await createPerson(server)
    const flow = await runAuthorization(server, client, person, { extra: { nonce: 'flow-nonce' } })
    expect(flow.code).toBeDefined()
    const response = await postToken(server, {
      grant_type: 'authorization_code',
      code: flow.code ?? '',
      redirect_uri: client.redirectUri,
      client_id: client.clientId,
      code_verifier: flow.pkce.verifier,
    })
    expect(response.status).toBe(200)
    const body = await readJson(response)
    const { payload } = await jwtVerify(body.id_token, jwks, {
      issuer: server.issuer,
      audience: client.clientId,
    })
    expect(payload.sub).toBe(person.user.id)
    expect(payload.nonce).toBe('flow-nonce')
    expect((await getUserinfo(server, body.access_token)).status).toBe(200)
  })

  it('requires the exact redirect URI used at authorization, the loopback port included', async () => {
    const client = await registerTestClient(server)
    const person = await createPerson(server)
    const otherPort = 'http://127.0.0.1:50123/callback'
    const fields = async (redirectUri: string) => {
      const flow = await runAuthorization(server, client, person, {
        extra: { redirect_uri: otherPort },
      })
      expect(flow.location.origin).toBe('http://127.0.0.1:50123')
      return {
        grant_type: 'authorization_code',
        code: flow.code ?? '',
        redirect_uri: redirectUri,
        client_id: client.clientId,
        code_verifier: flow.pkce.verifier,
      }
    }
    const registered = await postToken(server, await fields(client.redirectUri))
    expect(registered.status).toBe(400)
    expect((await readJson(registered)).error).toBe('invalid_grant')
    expect((await postToken(server, await fields(otherPort))).status).toBe(200)
  })
})
