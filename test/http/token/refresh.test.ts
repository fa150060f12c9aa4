import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createTestClock,
  getUserinfo,
  issueTestTokens,
  postToken,
  refreshFields,
  registerTestClient,
} from '../../support/grants.js'
import { readJson } from '../../support/http.js'
import { startTestServer, type TestServer } from '../../support/server.js'

const clock = createTestClock()
let server: TestServer
beforeAll(async () => {
  server = await startTestServer({ clock })
})
afterAll(async () => {
  await server?.close()
})

/** Just past the window in which a rotated refresh token counts as a concurrent refresh. */
const AFTER_GRACE_MS = 10_001

async function expectInvalidGrant(response: Response): Promise<void> {
  const body = await readJson(response)
  expect({ status: response.status, error: body.error }).toEqual({
    status: 400,
    error: 'invalid_grant',
  })
}

describe('refresh_token grant: rotated on every use', () => {
  it('answers new access and refresh tokens, the same scope, and no id_token', async () => {
    const { client, tokens } = await issueTestTokens(server)
    const response = await postToken(server, refreshFields(client, tokens.refresh_token))
    expect(response.status).toBe(200)
    expect(response.headers.get('cache-control')).toBe('no-store')
    const body = await readJson(response)
    expect(Object.keys(body).sort()).toEqual(
      ['access_token', 'expires_in', 'refresh_token', 'scope', 'token_type'].sort(),
    )
    expect(body.access_token).not.toBe(tokens.access_token)
    expect(body.refresh_token).not.toBe(tokens.refresh_token)
    expect(body.token_type).toBe('Bearer')
    expect(body.expires_in).toBe(server.deps.config.lifetimes.accessToken)
    expect(body.scope).toBe(tokens.scope)
    expect((await getUserinfo(server, body.access_token)).status).toBe(200)
    // The earlier access token lives on until it expires; only the refresh token rotates.
    expect((await getUserinfo(server, tokens.access_token)).status).toBe(200)
  })

  it('keeps working across several rotations', async () => {
    const { client, tokens } = await issueTestTokens(server)
    let refreshToken = tokens.refresh_token
    for (let i = 0; i < 3; i += 1) {
      const body = await readJson(await postToken(server, refreshFields(client, refreshToken)))
      expect(body.refresh_token).toMatch(/^prt_/)
      refreshToken = body.refresh_token
    }
  })

  it('binds the refresh token to its client: another client gets invalid_grant, the grant survives', async () => {
    const { client, tokens } = await issueTestTokens(server)
    const other = await registerTestClient(server)
    await expectInvalidGrant(await postToken(server, refreshFields(other, tokens.refresh_token)))
    expect((await postToken(server, refreshFields(client, tokens.refresh_token))).status).toBe(200)
  })

  it('refuses an unknown refresh token (invalid_grant)', async () => {
    const { client } = await issueTestTokens(server)
    const unknown = `prt_${randomBytes(32).toString('base64url')}`
    await expectInvalidGrant(await postToken(server, refreshFields(client, unknown)))
  })

  it('refuses refresh_token for a client not registered for that grant (unauthorized_client)', async () => {
    const { client } = await issueTestTokens(server, {
      metadata: { grant_types: ['authorization_code'] },
    })
    const response = await postToken(
      server,
      refreshFields(client, `prt_${randomBytes(32).toString('base64url')}`),
    )
    expect(response.status).toBe(400)
    expect((await readJson(response)).error).toBe('unauthorized_client')
  })

  it('refuses an expired refresh token (invalid_grant)', async () => {
    const { client, tokens } = await issueTestTokens(server)
    clock.advance(server.deps.config.lifetimes.refreshToken * 1000)
    await expectInvalidGrant(await postToken(server, refreshFields(client, tokens.refresh_token)))
  })

  it('refuses the refresh token of a revoked grant (invalid_grant)', async () => {
    const { client, tokens, minted } = await issueTestTokens(server)
    await server.deps.grants.revokeGrant(minted.grantId, clock.now())
    await expectInvalidGrant(await postToken(server, refreshFields(client, tokens.refresh_token)))
  })
})

describe('reuse of a rotated refresh token (RFC 9700 §4.14.2)', () => {
  it('revokes the whole grant when presented after the grace window: the new tokens stop working', async () => {
    const { client, tokens } = await issueTestTokens(server)
    const rotated = await readJson(
      await postToken(server, refreshFields(client, tokens.refresh_token)),
    )
    expect((await getUserinfo(server, rotated.access_token)).status).toBe(200)

    clock.advance(AFTER_GRACE_MS)
    await expectInvalidGrant(await postToken(server, refreshFields(client, tokens.refresh_token)))
    expect((await getUserinfo(server, rotated.access_token)).status).toBe(401)
    expect((await getUserinfo(server, tokens.access_token)).status).toBe(401)
    await expectInvalidGrant(await postToken(server, refreshFields(client, rotated.refresh_token)))
    expect(server.logs.some((l) => l.reason === 'refresh_token_reused')).toBe(true)
  })

  it('refuses a rotated token presented again within the grace window without revoking the grant', async () => {
    const { client, tokens } = await issueTestTokens(server)
    const rotated = await readJson(
      await postToken(server, refreshFields(client, tokens.refresh_token)),
    )
    clock.advance(5_000)
    await expectInvalidGrant(await postToken(server, refreshFields(client, tokens.refresh_token)))
    expect((await getUserinfo(server, rotated.access_token)).status).toBe(200)
    expect((await postToken(server, refreshFields(client, rotated.refresh_token))).status).toBe(200)
  })

  it('lets exactly one of two concurrent refreshes win; the other gets invalid_grant and the grant survives', async () => {
    for (let round = 0; round < 5; round += 1) {
      const { client, tokens } = await issueTestTokens(server)
      const responses = await Promise.all([
        postToken(server, refreshFields(client, tokens.refresh_token)),
        postToken(server, refreshFields(client, tokens.refresh_token)),
      ])
      expect(responses.map((r) => r.status).sort()).toEqual([200, 400])
      const winner = await readJson(responses.find((r) => r.status === 200)!)
      expect((await readJson(responses.find((r) => r.status === 400)!)).error).toBe('invalid_grant')
      expect((await getUserinfo(server, winner.access_token)).status).toBe(200)
      expect((await postToken(server, refreshFields(client, winner.refresh_token))).status).toBe(
        200,
      )
    }
  })
})

describe('scope at refresh (RFC 6749 §6): may narrow, never widen', () => {
  it('narrows the access token, while the new refresh token keeps the original scope', async () => {
    const { client, tokens } = await issueTestTokens(server)
    const narrowed = await readJson(
      await postToken(
        server,
        refreshFields(client, tokens.refresh_token, { scope: 'courses:read' }),
      ),
    )
    expect(narrowed.scope).toBe('courses:read')
    // Without openid the narrowed token is refused by userinfo: the scope really shrank.
    expect((await getUserinfo(server, narrowed.access_token)).status).toBe(403)
    const restored = await readJson(
      await postToken(server, refreshFields(client, narrowed.refresh_token)),
    )
    expect(restored.scope).toBe('openid profile email courses:read')
  })

  it('refuses a wider scope with invalid_scope and leaves the refresh token usable', async () => {
    const { client, tokens } = await issueTestTokens(server, { scope: 'openid courses:read' })
    for (const scope of ['openid courses:write', 'openid email', 'nonsense', 'a  b']) {
      const response = await postToken(
        server,
        refreshFields(client, tokens.refresh_token, { scope }),
      )
      expect(response.status).toBe(400)
      expect((await readJson(response)).error).toBe('invalid_scope')
    }
    expect((await postToken(server, refreshFields(client, tokens.refresh_token))).status).toBe(200)
  })
})

describe('resource (RFC 8707) at refresh', () => {
  it('accepts the grant’s resource and refuses any other with invalid_target', async () => {
    const { client, tokens } = await issueTestTokens(server)
    const refused = await postToken(
      server,
      refreshFields(client, tokens.refresh_token, { resource: 'https://other.example' }),
    )
    expect(refused.status).toBe(400)
    expect((await readJson(refused)).error).toBe('invalid_target')
    const response = await postToken(
      server,
      refreshFields(client, tokens.refresh_token, { resource: `${server.issuer}/` }),
    )
    expect(response.status).toBe(200)
  })
})

describe('who refreshes: the client as registered, the person as they are now', () => {
  it('refreshes for a confidential client with its secret; without it, invalid_client and the token stays usable', async () => {
    const { client, tokens } = await issueTestTokens(server, {
      metadata: { token_endpoint_auth_method: 'client_secret_post' },
    })
    expect(client.clientSecret).toBeDefined()
    const { client_secret: _secret, ...withoutSecret } = refreshFields(client, tokens.refresh_token)
    const refused = await postToken(server, withoutSecret)
    expect(refused.status).toBe(401)
    expect((await readJson(refused)).error).toBe('invalid_client')
    const wrong = await postToken(
      server,
      refreshFields(client, tokens.refresh_token, { client_secret: 'pcs_wrong' }),
    )
    expect(wrong.status).toBe(401)
    const response = await postToken(server, refreshFields(client, tokens.refresh_token))
    expect(response.status).toBe(200)
    expect((await getUserinfo(server, (await readJson(response)).access_token)).status).toBe(200)
  })

  it('refuses the refresh of a suspended person (invalid_grant), and refreshes again once they are active', async () => {
    const { client, tokens, user } = await issueTestTokens(server)
    const { db } = server.deps.database
    await db
      .updateTable('users')
      .set({ status: 'suspended', disabled_at: clock.now() })
      .where('id', '=', user.id)
      .execute()
    await expectInvalidGrant(await postToken(server, refreshFields(client, tokens.refresh_token)))
    expect(server.logs.some((l) => l.reason === 'user_inactive')).toBe(true)
    await db
      .updateTable('users')
      .set({ status: 'active', disabled_at: null })
      .where('id', '=', user.id)
      .execute()
    expect((await postToken(server, refreshFields(client, tokens.refresh_token))).status).toBe(200)
  })

  it('refuses a refresh past the grant’s absolute lifetime, however fresh the token', async () => {
    const { client, tokens } = await issueTestTokens(server)
    const { refreshToken, grantMaximum } = server.deps.config.lifetimes
    // Rotate just before each token expires, until the grant's end is passed.
    let current = tokens.refresh_token
    let elapsed = 0
    while (elapsed + refreshToken < grantMaximum) {
      clock.advance((refreshToken - 1) * 1000)
      elapsed += refreshToken - 1
      const body = await readJson(await postToken(server, refreshFields(client, current)))
      expect(body.refresh_token).toBeDefined()
      current = body.refresh_token
    }
    clock.advance((grantMaximum - elapsed) * 1000)
    await expectInvalidGrant(await postToken(server, refreshFields(client, current)))
    expect(server.logs.some((l) => l.reason === 'refresh_token_expired')).toBe(true)
  })
})

describe('the refresh in one statement (PostgreSQL)', () => {
  it('does a public client’s plain refresh without the two-step read; any other refresh reads first', async () => {
    const { grants } = server.deps
    const read = grants.findClientWithRefreshGrant
    let reads = 0
    grants.findClientWithRefreshGrant = (...args) => {
      reads += 1
      return read(...args)
    }
    try {
      const { client, tokens } = await issueTestTokens(server)
      const plain = await readJson(
        await postToken(server, refreshFields(client, tokens.refresh_token)),
      )
      expect(plain.refresh_token).toBeDefined()
      const oneStatement = grants.rotateRefreshInOneStatement !== undefined
      expect(reads).toBe(oneStatement ? 0 : 1)
      const narrowed = await postToken(
        server,
        refreshFields(client, plain.refresh_token, { scope: 'openid' }),
      )
      expect(narrowed.status).toBe(200)
      expect(reads).toBe(oneStatement ? 1 : 2)
      expect(oneStatement).toBe(server.deps.database.dialect === 'postgres')
    } finally {
      grants.findClientWithRefreshGrant = read
    }
  })
})
