import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  codeFields,
  createPerson,
  createTestClock,
  getUserinfo,
  type MintOptions,
  mintCode,
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

async function freshCode(options: MintOptions = {}) {
  const client = await registerTestClient(server)
  const { user } = await createPerson(server)
  return mintCode(server, client, user, options)
}

async function expectError(response: Response, error: string, status = 400): Promise<string> {
  const body = await readJson(response)
  expect({ status: response.status, error: body.error }).toEqual({ status, error })
  expect(response.headers.get('cache-control')).toBe('no-store')
  expect(typeof body.error_description).toBe('string')
  return body.error_description
}

describe('a code is redeemed at most once', () => {
  it('refuses a second redemption with invalid_grant and revokes the tokens of the first', async () => {
    const minted = await freshCode()
    const first = await readJson(await postToken(server, codeFields(minted)))
    expect((await getUserinfo(server, first.access_token)).status).toBe(200)

    await expectError(await postToken(server, codeFields(minted)), 'invalid_grant')
    expect((await getUserinfo(server, first.access_token)).status).toBe(401)
    const refresh = await postToken(server, refreshFields(minted.client, first.refresh_token))
    await expectError(refresh, 'invalid_grant')
    expect(server.logs.some((l) => l.reason === 'code_replayed')).toBe(true)
  })

  // Two interleavings are both right. Usually one request redeems the code and gets tokens,
  // and the other, a replay, revokes them. But the replay may revoke the grant between the
  // first request's redemption and its issuing, and then the first is refused too (its grant
  // has ended). Either way no more than one request gets tokens and none of them works.
  it('lets at most one of two concurrent redemptions succeed, and the replay revokes whatever was issued', async () => {
    for (let round = 0; round < 5; round += 1) {
      const minted = await freshCode()
      const responses = await Promise.all([
        postToken(server, codeFields(minted)),
        postToken(server, codeFields(minted)),
      ])
      const statuses = responses.map((r) => r.status).sort()
      expect([
        [200, 400],
        [400, 400],
      ]).toContainEqual(statuses)
      for (const loser of responses.filter((r) => r.status === 400))
        expect((await readJson(loser)).error).toBe('invalid_grant')
      const winner = responses.find((r) => r.status === 200)
      if (winner) {
        const tokens = await readJson(winner)
        expect((await getUserinfo(server, tokens.access_token)).status).toBe(401)
      }
      // And the code stays spent.
      await expectError(await postToken(server, codeFields(minted)), 'invalid_grant')
    }
  })
})

describe('the code must be unexpired and belong to this client and redirect URI', () => {
  it('refuses an expired code (invalid_grant)', async () => {
    const minted = await freshCode()
    clock.advance(server.deps.config.lifetimes.authorizationCode * 1000 + 1)
    await expectError(await postToken(server, codeFields(minted)), 'invalid_grant')
  })

  it('accepts a code one second before it expires', async () => {
    const minted = await freshCode()
    clock.advance(server.deps.config.lifetimes.authorizationCode * 1000 - 1000)
    expect((await postToken(server, codeFields(minted))).status).toBe(200)
  })

  it('refuses an unknown code (invalid_grant)', async () => {
    const minted = await freshCode()
    const fields = codeFields(minted, { code: `pac_${randomBytes(32).toString('base64url')}` })
    await expectError(await postToken(server, fields), 'invalid_grant')
  })

  it('refuses a code used by another client (invalid_grant), and the code is then spent', async () => {
    const minted = await freshCode()
    const other = await registerTestClient(server)
    const fields = codeFields(minted, { client_id: other.clientId })
    await expectError(await postToken(server, fields), 'invalid_grant')
    await expectError(await postToken(server, codeFields(minted)), 'invalid_grant')
  })

  it('refuses another redirect_uri (invalid_grant): port, path and trailing slash all count', async () => {
    const base = 'http://127.0.0.1:49152/callback'
    for (const uri of [
      'http://127.0.0.1:49153/callback',
      'http://127.0.0.1:49152/other',
      `${base}/`,
      `${base}?x=1`,
    ]) {
      const minted = await freshCode()
      expect(minted.redirectUri).toBe(base)
      await expectError(
        await postToken(server, codeFields(minted, { redirect_uri: uri })),
        'invalid_grant',
      )
    }
  })

  it('accepts the exact redirect URI of the authorization request, another port included', async () => {
    const minted = await freshCode({ redirectUri: 'http://127.0.0.1:61234/callback' })
    expect((await postToken(server, codeFields(minted))).status).toBe(200)
  })
})

describe('PKCE: BASE64URL(SHA256(code_verifier)) must equal the challenge', () => {
  it('refuses a wrong verifier (invalid_grant)', async () => {
    const minted = await freshCode()
    const fields = codeFields(minted, { code_verifier: randomBytes(32).toString('base64url') })
    await expectError(await postToken(server, fields), 'invalid_grant')
  })

  it('refuses a verifier of 42 characters and one of 129 (invalid_grant)', async () => {
    for (const length of [42, 129]) {
      const minted = await freshCode()
      const verifier = minted.verifier.padEnd(length, 'a').slice(0, length)
      expect(verifier).toHaveLength(length)
      await expectError(
        await postToken(server, codeFields(minted, { code_verifier: verifier })),
        'invalid_grant',
      )
    }
  })

  it('refuses a verifier with characters outside the RFC 7636 alphabet (invalid_grant)', async () => {
    const minted = await freshCode()
    const verifier = `${minted.verifier.slice(0, 42)}+`
    await expectError(
      await postToken(server, codeFields(minted, { code_verifier: verifier })),
      'invalid_grant',
    )
  })

  it('answers invalid_request when code, redirect_uri or code_verifier is missing, and the code survives', async () => {
    const minted = await freshCode()
    for (const name of ['code', 'redirect_uri', 'code_verifier']) {
      const fields = { ...codeFields(minted), [name]: '' }
      const description = await expectError(await postToken(server, fields), 'invalid_request')
      expect(description).toContain(name)
    }
    expect((await postToken(server, codeFields(minted))).status).toBe(200)
  })
})

describe('resource (RFC 8707) at the token endpoint', () => {
  it('accepts the resource the code was issued for, with or without a trailing slash', async () => {
    for (const resource of [server.issuer, `${server.issuer}/`]) {
      const minted = await freshCode()
      expect((await postToken(server, codeFields(minted, { resource }))).status).toBe(200)
    }
  })

  it('refuses an unknown resource with invalid_target', async () => {
    const minted = await freshCode()
    const fields = codeFields(minted, { resource: 'https://api.elsewhere.example' })
    await expectError(await postToken(server, fields), 'invalid_target')
  })

  it('refuses a registered resource other than the code’s with invalid_target', async () => {
    const identifier = `https://reports-${randomBytes(3).toString('hex')}.example`
    await server.deps.resourceServers.insert({
      id: server.deps.random.id('rs'),
      identifier,
      name: 'Reports',
      secretDigest: 'x',
      createdAt: clock.now(),
    })
    const minted = await freshCode()
    await expectError(
      await postToken(server, codeFields(minted, { resource: identifier })),
      'invalid_target',
    )
    const forReports = await freshCode({ resource: identifier })
    const response = await postToken(server, codeFields(forReports, { resource: identifier }))
    expect(response.status).toBe(200)
    const tokens = await readJson(response)
    // A token for another API is not one for Portico's own userinfo.
    expect((await getUserinfo(server, tokens.access_token)).status).toBe(401)
  })
})
