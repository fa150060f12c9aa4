import { createHmac, generateKeyPairSync, randomBytes } from 'node:crypto'
import {
  createLocalJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  exportSPKI,
  importJWK,
  type JWK,
  jwtVerify,
  SignJWT,
} from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { codeFields, mintCode, postToken, refreshFields } from '../support/grants.js'
import { type Json, readJson } from '../support/http.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { callApi, type Issued, issue, postIntrospect, revoke } from '../support/token-lifecycle.js'
import { parseChallenge } from '../support/www-authenticate.js'
import { expectOAuthError, expectProblem, flipCharacter } from './support.js'

/**
 * RFC 6750 §3.1, RFC 7662 §2.2, RFC 7009 §2.2, RFC 8725 §2–3: every forged or altered token
 * is refused wherever a token is accepted. Portico's access and refresh tokens are opaque
 * (looked up by digest), so any JWT, even one signed with Portico's own key, is not one;
 * and the ID tokens it signs verify against its JWKS, and only untampered.
 */

let server: TestServer
let issued: Issued
let idToken: string
let unusedCode: string
let jwks: { keys: JWK[] }

beforeAll(async () => {
  server = await startTestServer()
  issued = await issue(server, { scope: 'openid profile email account:read' })
  // One more exchange, to keep its ID token and an unexchanged code of the same client.
  const minted = await mintCode(server, issued.client, issued.person.user, {
    scope: 'openid profile',
    nonce: 'n-0S6_WzA2Mj',
  })
  const body = (await (await postToken(server, codeFields(minted))).json()) as Json
  idToken = body.id_token
  unusedCode = (await mintCode(server, issued.client, issued.person.user)).code
  jwks = (await (await server.fetch('/.well-known/jwks.json')).json()) as { keys: JWK[] }
})
afterAll(async () => {
  await server?.close()
})

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')

/** Claims a forger would put into an access-token JWT for this person and Portico's API. */
function forgedClaims(): Record<string, unknown> {
  const now = Math.floor(Date.now() / 1000)
  return {
    iss: server.issuer,
    sub: issued.person.user.id,
    aud: server.issuer,
    client_id: issued.client.clientId,
    scope: 'openid account:read account:write',
    iat: now,
    exp: now + 3600,
  }
}

/** RFC 8725 §2.1: an unsigned JWT. */
function algNone(): string {
  return `${b64({ alg: 'none', typ: 'JWT' })}.${b64(forgedClaims())}.`
}

/** RFC 8725 §2.1 key confusion: HS256 keyed with Portico's own RSA public key. */
async function keyConfusion(form: 'pem' | 'jwk'): Promise<string> {
  const rsa = jwks.keys.find((k) => k.kty === 'RSA')
  if (!rsa) throw new Error('no RSA key in the JWKS')
  const secret =
    form === 'pem'
      ? await exportSPKI((await importJWK(rsa, 'RS256')) as Parameters<typeof exportSPKI>[0])
      : JSON.stringify(rsa)
  const input = `${b64({ alg: 'HS256', typ: 'JWT', kid: rsa.kid })}.${b64(forgedClaims())}`
  return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`
}

/** A JWT signed by the attacker's own key, naming Portico's kid. */
async function attackerSigned(): Promise<string> {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const kid = jwks.keys.find((k) => k.kty === 'RSA')?.kid
  return new SignJWT(forgedClaims())
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT', ...(kid && { kid }) })
    .sign(privateKey)
}

/** JWTs signed with Portico's real signing key, with a wrong typ, iss or aud. */
async function signedByPortico(): Promise<Array<readonly [string, string]>> {
  const claims = forgedClaims()
  const sign = (payload: Record<string, unknown>, typ = 'JWT') =>
    server.deps.keys.sign(payload, 'RS256', typ)
  return [
    ['a Portico-signed JWT with typ at+jwt (RFC 9068)', await sign(claims, 'at+jwt')],
    [
      'a Portico-signed JWT with another iss',
      await sign({ ...claims, iss: 'https://evil.example' }),
    ],
    [
      'a Portico-signed JWT with another aud',
      await sign({ ...claims, aud: 'https://evil.example' }),
    ],
    ['a Portico-signed JWT with every claim right', await sign(claims)],
  ]
}

/** [attack, token] pairs, none of which is a live access token. */
async function forgeries(): Promise<Array<readonly [string, string]>> {
  const token = issued.accessToken
  const body = token.slice('pat_'.length)
  return [
    ['a random token of the right shape', `pat_${randomBytes(32).toString('base64url')}`],
    ['the token with its last character changed', flipCharacter(token, -1)],
    ['the token with its first secret character changed', flipCharacter(token, 4)],
    ['the token with a middle character changed', flipCharacter(token, 24)],
    ['the token truncated by one character', token.slice(0, -1)],
    ['the token with one character appended', `${token}A`],
    ['the token without its prefix', body],
    ['the token under another prefix', `prt_${body}`],
    ['the token in upper case', token.toUpperCase()],
    ['the token twice', `${token}${token}`],
    ['the refresh token', issued.refreshToken],
    ['an authorization code', unusedCode],
    ['an ID token (a JWT signed by Portico)', idToken],
    ['an unsigned JWT (alg none)', algNone()],
    ['an HS256 JWT keyed with the RS256 public key PEM', await keyConfusion('pem')],
    ['an HS256 JWT keyed with the RS256 public JWK', await keyConfusion('jwk')],
    ["a JWT signed by another key under Portico's kid", await attackerSigned()],
    ...(await signedByPortico()),
  ]
}

/**
 * Authorization header values that carry the real token but are not `Bearer <token>`.
 * (Surrounding whitespace is not among them: RFC 9110 §5.5 strips it from every field.)
 */
function malformedHeaders(): Array<readonly [string, string]> {
  const token = issued.accessToken
  return [
    ['a tab instead of a space', `Bearer\t${token}`],
    ['no space', `Bearer${token}`],
    ['the token twice', `Bearer ${token} ${token}`],
    ['a comma-separated second credential', `Bearer ${token}, Basic YTpi`],
    ['the Basic scheme', `Basic ${Buffer.from(`${token}:`).toString('base64')}`],
    ['the MAC scheme', `MAC ${token}`],
    ['no scheme', token],
    ['quotes around the token', `Bearer "${token}"`],
  ]
}

describe('control: the real access token works (so every refusal below is the forgery’s)', () => {
  it('is accepted at userinfo, /api/v1/account and introspection', async () => {
    expect(
      (await callApi(server, '/api/oauth/userinfo', { token: issued.accessToken })).status,
    ).toBe(200)
    expect((await callApi(server, '/api/v1/account', { token: issued.accessToken })).status).toBe(
      200,
    )
    const answer = await postIntrospect(server, issued.client, issued.accessToken)
    expect(((await answer.json()) as Json).active).toBe(true)
  })
})

describe('RFC 6750 §3.1: forged and altered tokens are invalid_token at userinfo', () => {
  it('refuses every forgery with 401 invalid_token and a challenge saying so', async () => {
    for (const [what, token] of await forgeries()) {
      const response = await callApi(server, '/api/oauth/userinfo', { token })
      const challenge = parseChallenge(response.headers.get('www-authenticate'))
      expect(challenge.params.error, what).toBe('invalid_token')
      const body = await expectOAuthError(response, 401)
      expect(body.error, what).toBe('invalid_token')
    }
  })

  it('refuses the real token in a malformed Authorization header', async () => {
    for (const [what, authorization] of malformedHeaders()) {
      const response = await callApi(server, '/api/oauth/userinfo', { authorization })
      expect(response.status, what).toBe(401)
      expect((await readJson(response)).error, what).toBe('invalid_token')
    }
  })
})

describe('RFC 6750 §3.1: forged and altered tokens are 401 on the API, never anonymous', () => {
  it('refuses every forgery on /api/v1 and /api/v1/account with problem+json', async () => {
    for (const [what, token] of await forgeries()) {
      for (const path of ['/api/v1', '/api/v1/account']) {
        const response = await callApi(server, path, { token })
        const body = await expectProblem(response, 401)
        expect(body.code, `${what} at ${path}`).toBe('invalid_token')
      }
    }
  })

  it('refuses the real token in a malformed Authorization header', async () => {
    for (const [what, authorization] of malformedHeaders()) {
      const response = await callApi(server, '/api/v1', { authorization })
      expect(response.status, what).toBe(401)
    }
  })

  it('refuses a PATCH with a forged token and changes nothing', async () => {
    const before = await (
      await callApi(server, '/api/v1/account', { token: issued.accessToken })
    ).text()
    for (const [what, token] of await forgeries()) {
      const response = await callApi(server, '/api/v1/account', {
        token,
        init: {
          method: 'PATCH',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'Forged' }),
        },
      })
      expect(response.status, what).toBe(401)
    }
    const after = await (
      await callApi(server, '/api/v1/account', { token: issued.accessToken })
    ).text()
    expect(after).toBe(before)
  })
})

describe('RFC 7662 §2.2: introspection answers exactly {"active":false} for every forgery', () => {
  it('as the client that holds the real token, for every forged access token', async () => {
    for (const [what, token] of await forgeries()) {
      if (token === issued.refreshToken) continue
      const response = await postIntrospect(server, issued.client, token)
      expect(response.status, what).toBe(200)
      expect(await response.json(), what).toEqual({ active: false })
    }
  })

  it('for altered refresh tokens, with either hint', async () => {
    const token = issued.refreshToken
    for (const altered of [flipCharacter(token, -1), flipCharacter(token, 5), token.slice(0, -1)]) {
      for (const hint of ['refresh_token', 'access_token']) {
        const response = await postIntrospect(server, issued.client, altered, {
          token_type_hint: hint,
        })
        expect(await response.json()).toEqual({ active: false })
      }
    }
  })
})

describe('RFC 7009 §2.2: revoking a forgery answers 200 and revokes nothing real', () => {
  it('leaves the real access and refresh tokens working after every forgery is "revoked"', async () => {
    const variants = [
      ...(await forgeries()).filter(([, t]) => t !== issued.refreshToken && t !== unusedCode),
      ['the refresh token with its last character changed', flipCharacter(issued.refreshToken, -1)],
      ['the refresh token truncated', issued.refreshToken.slice(0, -1)],
    ] as const
    for (const [what, token] of variants) {
      const response = await revoke(server, issued.client, token)
      expect(response.status, what).toBe(200)
    }
    expect(
      (await callApi(server, '/api/oauth/userinfo', { token: issued.accessToken })).status,
    ).toBe(200)
    const answer = await postIntrospect(server, issued.client, issued.refreshToken)
    expect(((await answer.json()) as Json).active).toBe(true)
  })
})

describe('RFC 6749 §5.2: at the token endpoint, one kind of token is never another', () => {
  it('refuses the access token, the ID token, a code and altered refresh tokens as refresh_token', async () => {
    const candidates = [
      issued.accessToken,
      idToken,
      unusedCode,
      algNone(),
      flipCharacter(issued.refreshToken, -1),
      issued.refreshToken.slice(0, -1),
      `${issued.refreshToken} `,
    ]
    for (const candidate of candidates) {
      const response = await postToken(server, refreshFields(issued.client, candidate))
      const body = await expectOAuthError(response, 400)
      expect(body.error).toBe('invalid_grant')
    }
  })

  it('refuses the access, refresh and ID tokens as an authorization code', async () => {
    const { user } = issued.person
    for (const candidate of [issued.accessToken, issued.refreshToken, idToken]) {
      const minted = await mintCode(server, issued.client, user)
      const response = await postToken(server, codeFields(minted, { code: candidate }))
      const body = await expectOAuthError(response, 400)
      expect(body.error).toBe('invalid_grant')
    }
  })

  it('still refreshes with the real refresh token afterwards: no forgery counted as a replay', async () => {
    const response = await postToken(server, refreshFields(issued.client, issued.refreshToken))
    expect(response.status).toBe(200)
  })
})

describe('OIDC Core §2, §3.1.3.7: the ID token', () => {
  it('carries typ JWT, a kid from the JWKS, and iss, aud, sub, nonce as issued', async () => {
    const header = decodeProtectedHeader(idToken)
    expect(header.typ).toBe('JWT')
    expect(header.alg).toBe('RS256')
    expect(jwks.keys.map((k) => k.kid)).toContain(header.kid)
    const { payload } = await jwtVerify(idToken, createLocalJWKSet(jwks), {
      issuer: server.issuer,
      audience: issued.client.clientId,
      typ: 'JWT',
      algorithms: ['RS256', 'ES256'],
    })
    expect(payload.sub).toBe(issued.person.user.id)
    expect(payload.nonce).toBe('n-0S6_WzA2Mj')
    expect(payload.aud).toBe(issued.client.clientId)
  })

  it('fails verification against the JWKS once any claim is changed', async () => {
    const [header, , signature] = idToken.split('.')
    const claims = decodeJwt(idToken)
    for (const change of [
      { sub: 'usr_someone_else' },
      { aud: 'pci_other_client' },
      { exp: (claims.exp ?? 0) + 86_400 },
      { nonce: 'another-nonce' },
    ]) {
      const tampered = `${header}.${b64({ ...claims, ...change })}.${signature}`
      await expect(
        jwtVerify(tampered, createLocalJWKSet(jwks), { algorithms: ['RS256', 'ES256'] }),
      ).rejects.toThrow(/signature verification failed/)
    }
  })

  it('fails verification with another header: alg none, HS256 key confusion, or a flipped signature', async () => {
    const [, payload, signature = ''] = idToken.split('.')
    const none = `${b64({ alg: 'none', typ: 'JWT' })}.${payload}.`
    const rsa = jwks.keys.find((k) => k.kty === 'RSA')
    const hsInput = `${b64({ alg: 'HS256', typ: 'JWT', kid: rsa?.kid })}.${payload}`
    const hs = `${hsInput}.${createHmac('sha256', JSON.stringify(rsa)).update(hsInput).digest('base64url')}`
    const flipped = `${idToken.split('.').slice(0, 2).join('.')}.${flipCharacter(signature, 10)}`
    for (const token of [none, hs, flipped]) {
      await expect(
        jwtVerify(token, createLocalJWKSet(jwks), { algorithms: ['RS256', 'ES256'] }),
      ).rejects.toThrow()
    }
  })
})
