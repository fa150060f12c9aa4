import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestClock, getUserinfo, issueTestTokens, USERINFO } from '../../support/grants.js'
import { formInit, readJson } from '../../support/http.js'
import { startTestServer, type TestServer } from '../../support/server.js'
import { parseChallenge } from '../../support/www-authenticate.js'

const clock = createTestClock()
let server: TestServer
let resourceMetadata: string
beforeAll(async () => {
  server = await startTestServer({ clock })
  resourceMetadata = `${server.issuer}/.well-known/oauth-protected-resource`
})
afterAll(async () => {
  await server?.close()
})

describe('userinfo claims by scope', () => {
  it('answers sub only with openid alone, not cached', async () => {
    const { tokens, user } = await issueTestTokens(server, { scope: 'openid' })
    const response = await getUserinfo(server, tokens.access_token)
    expect(response.status).toBe(200)
    expect(response.headers.get('cache-control')).toBe('no-store')
    expect(await readJson(response)).toEqual({ sub: user.id })
  })

  it('adds name and updated_at with profile (never the e-mail address), and picture when there is an avatar', async () => {
    const { tokens, user } = await issueTestTokens(server, { scope: 'openid profile' })
    expect(await readJson(await getUserinfo(server, tokens.access_token))).toEqual({
      sub: user.id,
      name: user.name,
      updated_at: Math.floor(user.updatedAt / 1000),
    })
    const avatar = 'https://cdn.example/avatars/1.png'
    await server.deps.database.db
      .updateTable('users')
      .set({ avatar_url: avatar })
      .where('id', '=', user.id)
      .execute()
    expect((await readJson(await getUserinfo(server, tokens.access_token))).picture).toBe(avatar)
  })

  it('adds email and email_verified with email', async () => {
    const { tokens, user } = await issueTestTokens(server, { scope: 'openid email' })
    expect(await readJson(await getUserinfo(server, tokens.access_token))).toEqual({
      sub: user.id,
      email: user.email,
      email_verified: true,
    })
  })

  it('answers POST as well as GET', async () => {
    const { tokens, user } = await issueTestTokens(server, { scope: 'openid email' })
    const bare = await server.fetch(USERINFO, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.access_token}` },
    })
    expect((await readJson(bare)).sub).toBe(user.id)
    const form = await server.fetch(
      USERINFO,
      formInit({}, { authorization: `Bearer ${tokens.access_token}` }),
    )
    expect((await readJson(form)).email).toBe(user.email)
  })

  it('accepts the scheme in any case and several spaces before the token', async () => {
    const { tokens } = await issueTestTokens(server, { scope: 'openid' })
    for (const header of [`bearer ${tokens.access_token}`, `BEARER   ${tokens.access_token}`]) {
      const response = await server.fetch(USERINFO, { headers: { authorization: header } })
      expect(response.status).toBe(200)
    }
  })
})

describe('userinfo errors carry WWW-Authenticate pointing to the protected resource metadata', () => {
  async function expectInvalidToken(response: Response): Promise<void> {
    expect(response.status).toBe(401)
    expect(response.headers.get('cache-control')).toBe('no-store')
    const body = await readJson(response)
    expect(body.error).toBe('invalid_token')
    const challenge = parseChallenge(response.headers.get('www-authenticate'))
    expect(challenge.scheme).toBe('Bearer')
    expect(Object.keys(challenge.params).sort()).toEqual([
      'error',
      'error_description',
      'resource_metadata',
    ])
    expect(challenge.params.error).toBe('invalid_token')
    expect(challenge.params.error_description).toBe(body.error_description)
    expect(challenge.params.resource_metadata).toBe(resourceMetadata)
  }

  it('without an Authorization header: 401 with only resource_metadata in the challenge', async () => {
    const response = await server.fetch(USERINFO)
    expect(response.status).toBe(401)
    const challenge = parseChallenge(response.headers.get('www-authenticate'))
    expect(challenge).toEqual({ scheme: 'Bearer', params: { resource_metadata: resourceMetadata } })
  })

  it('never takes the token from the query string or the body', async () => {
    const { tokens } = await issueTestTokens(server, { scope: 'openid' })
    const query = await server.fetch(`${USERINFO}?access_token=${tokens.access_token}`)
    expect(query.status).toBe(401)
    expect(parseChallenge(query.headers.get('www-authenticate')).params).not.toHaveProperty('error')
    const body = await server.fetch(USERINFO, formInit({ access_token: tokens.access_token }))
    expect(body.status).toBe(401)
  })

  it('malformed headers: invalid_token', async () => {
    const { tokens } = await issueTestTokens(server, { scope: 'openid' })
    for (const header of [
      'Bearer',
      'Bearer ',
      `Basic ${Buffer.from('a:b').toString('base64')}`,
      `Bearer ${tokens.access_token} ${tokens.access_token}`,
      `Bearer "${tokens.access_token}"`,
      `Bearer ${tokens.access_token},`,
      `Token ${tokens.access_token}`,
      `Bearer\t${tokens.access_token}`,
    ]) {
      await expectInvalidToken(await server.fetch(USERINFO, { headers: { authorization: header } }))
    }
  })

  it('an unknown token: invalid_token', async () => {
    await expectInvalidToken(
      await getUserinfo(server, `pat_${randomBytes(32).toString('base64url')}`),
    )
  })

  it('a refresh token used as an access token: invalid_token', async () => {
    const { tokens } = await issueTestTokens(server, { scope: 'openid' })
    await expectInvalidToken(await getUserinfo(server, tokens.refresh_token))
  })

  it('a revoked token: invalid_token', async () => {
    const { tokens, minted } = await issueTestTokens(server, { scope: 'openid' })
    await server.deps.grants.revokeGrant(minted.grantId, clock.now())
    await expectInvalidToken(await getUserinfo(server, tokens.access_token))
  })

  it('an expired token: invalid_token', async () => {
    const { tokens } = await issueTestTokens(server, { scope: 'openid' })
    clock.advance(server.deps.config.lifetimes.accessToken * 1000)
    await expectInvalidToken(await getUserinfo(server, tokens.access_token))
  })

  it('a token without openid: 403 insufficient_scope with scope="openid"', async () => {
    const { tokens } = await issueTestTokens(server, { scope: 'profile email courses:read' })
    const response = await getUserinfo(server, tokens.access_token)
    expect(response.status).toBe(403)
    const body = await readJson(response)
    expect(body.error).toBe('insufficient_scope')
    const challenge = parseChallenge(response.headers.get('www-authenticate'))
    expect(challenge.scheme).toBe('Bearer')
    expect(challenge.params).toEqual({
      error: 'insufficient_scope',
      error_description: body.error_description,
      scope: 'openid',
      resource_metadata: resourceMetadata,
    })
  })

  it('exposes WWW-Authenticate to browsers (CORS)', async () => {
    const response = await server.fetch(USERINFO, { headers: { origin: 'https://app.example' } })
    expect(response.headers.get('access-control-allow-origin')).toBe('*')
    expect(response.headers.get('access-control-expose-headers')).toMatch(/WWW-Authenticate/i)
  })

  it('is advertised as userinfo_endpoint', async () => {
    const metadata = await readJson(await server.fetch('/.well-known/openid-configuration'))
    expect(metadata.userinfo_endpoint).toBe(`${server.issuer}${USERINFO}`)
  })
})
