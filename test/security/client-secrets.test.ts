import { timingSafeEqual } from 'node:crypto'
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { digest, secretMatches } from '../../src/platform/crypto.js'
import { createPerson, registerTestClient, type TestClient } from '../support/flow.js'
import { codeFields, mintCode, postToken } from '../support/grants.js'
import { formInit, readJson } from '../support/http.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { issue, registerResourceServer } from '../support/token-lifecycle.js'
import { snapshot } from './support.js'

/**
 * RFC 6749 §2.3.1, §5.2 and RFC 9700 §2.5: confidential-client secrets. Every way of
 * getting the secret wrong is the same 401 invalid_client, byte for byte, at the token,
 * revocation and introspection endpoints; and every presented secret, whatever its length,
 * goes through one constant-time comparison of two SHA-256 digests. (No timing is measured:
 * the test checks that both paths run the same comparison, which is what makes them
 * indistinguishable.)
 */

vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:crypto')>()
  return { ...actual, timingSafeEqual: vi.fn(actual.timingSafeEqual) }
})
const comparisons = vi.mocked(timingSafeEqual)

let server: TestServer
let confidential: TestClient
let other: TestClient
let publicClient: TestClient
let resourceServer: { clientId: string; clientSecret?: string }

beforeAll(async () => {
  server = await startTestServer()
  confidential = await registerTestClient(server, {
    token_endpoint_auth_method: 'client_secret_post',
  })
  other = await registerTestClient(server, { token_endpoint_auth_method: 'client_secret_post' })
  publicClient = await registerTestClient(server)
  resourceServer = await registerResourceServer(server, 'https://api.school.example/')
})
afterAll(async () => {
  await server?.close()
})
beforeEach(() => {
  comparisons.mockClear()
})

/** [what is wrong, the client_secret sent, or undefined for none]. */
function wrongSecrets(secret: string): Array<readonly [string, string | undefined]> {
  const flip = (s: string) => `${s.slice(0, -1)}${s.endsWith('A') ? 'B' : 'A'}`
  return [
    ['missing', undefined],
    ['empty (RFC 6749 §3.1: the same as missing)', ''],
    ['one character changed', flip(secret)],
    ['a valid prefix (one character short)', secret.slice(0, -1)],
    ['half of it', secret.slice(0, Math.floor(secret.length / 2))],
    ['one character appended', `${secret}A`],
    ['much longer', `${secret}${'A'.repeat(4000)}`],
    ['one character', 'A'],
    ['upper-cased', secret.toUpperCase()],
    ['with a leading space', ` ${secret}`],
    ["another client's secret", other.clientSecret ?? 'x'],
    ['its SHA-256 digest (what is stored)', digest(secret)],
  ]
}

/** What must be identical across failures: status, body and headers other than id and date. */
async function fingerprint(response: Response): Promise<string> {
  const headers = [...response.headers.entries()]
    .filter(([name]) => !['date', 'x-request-id'].includes(name))
    .sort()
  return JSON.stringify({ status: response.status, headers, body: await response.text() })
}

describe('secretMatches: one constant-time comparison whatever the length (unit)', () => {
  it('compares two 32-byte digests exactly once for inputs of every length', () => {
    const stored = digest('pcs_the-real-secret')
    for (const presented of [
      '',
      'p',
      'pcs_the-real-secre',
      'pcs_the-real-secret',
      'x'.repeat(100_000),
    ]) {
      comparisons.mockClear()
      const matched = secretMatches(presented, stored)
      expect(matched).toBe(presented === 'pcs_the-real-secret')
      expect(comparisons).toHaveBeenCalledTimes(1)
      const [a, b] = comparisons.mock.calls[0] ?? []
      expect((a as Buffer).length).toBe(32)
      expect((b as Buffer).length).toBe(32)
    }
  })
})

describe('RFC 6749 §5.2: the token endpoint answers every wrong secret alike', () => {
  it('is 401 invalid_client with one body and one set of headers, and issues nothing', async () => {
    const { user } = await createPerson(server)
    const minted = await mintCode(server, confidential, user)
    const prints = new Set<string>()
    for (const [what, secret] of wrongSecrets(confidential.clientSecret ?? '')) {
      const before = await snapshot(server)
      const fields = codeFields(minted)
      delete fields.client_secret
      if (secret !== undefined) fields.client_secret = secret
      comparisons.mockClear()
      const response = await postToken(server, fields)
      expect(response.status, what).toBe(401)
      prints.add(await fingerprint(response))
      // Every presented secret went through the one comparison; none short-cut it.
      expect(comparisons, what).toHaveBeenCalledTimes(secret ? 1 : 0)
      expect(await snapshot(server), what).toEqual(before)
    }
    // An unknown client and a public client sending a secret fail the same way.
    const others: Array<Record<string, string | readonly string[]>> = [
      { ...codeFields(minted), client_id: 'pci_unknown' },
      { ...codeFields(minted), client_id: publicClient.clientId, client_secret: 'x' },
      { grant_type: 'authorization_code', code: minted.code },
    ]
    for (const fields of others) {
      prints.add(await fingerprint(await postToken(server, fields)))
    }
    expect(prints.size).toBe(1)
    expect(JSON.parse([...prints][0] ?? '{}').body).toContain('"error":"invalid_client"')
    // The code was never touched: the right secret still redeems it.
    expect((await postToken(server, codeFields(minted))).status).toBe(200)
  })

  it('does not take the secret from an Authorization: Basic header (client_secret_basic is not offered)', async () => {
    const { user } = await createPerson(server)
    const minted = await mintCode(server, confidential, user)
    const fields = codeFields(minted)
    delete fields.client_secret
    const basic = Buffer.from(`${confidential.clientId}:${confidential.clientSecret}`).toString(
      'base64',
    )
    const response = await server.fetch(
      '/api/oauth/token',
      formInit(fields, { authorization: `Basic ${basic}` }),
    )
    expect(response.status).toBe(401)
    expect((await readJson(response)).error).toBe('invalid_client')
  })
})

describe('RFC 7009 §2.1 and RFC 7662 §2.1: revocation and introspection answer every wrong secret alike', () => {
  it('revocation: one 401 for every wrong secret, and the token survives', async () => {
    const tokens = await issue(server, { client: confidential })
    const prints = new Set<string>()
    for (const [what, secret] of wrongSecrets(confidential.clientSecret ?? '')) {
      comparisons.mockClear()
      const response = await server.fetch(
        '/api/oauth/revoke',
        formInit({
          client_id: confidential.clientId,
          token: tokens.refreshToken,
          ...(secret !== undefined && { client_secret: secret }),
        }),
      )
      expect(response.status, what).toBe(401)
      expect(comparisons, what).toHaveBeenCalledTimes(secret ? 1 : 0)
      prints.add(await fingerprint(response))
    }
    expect(prints.size).toBe(1)
    const live = await server.fetch(
      '/api/oauth/introspect',
      formInit({
        client_id: confidential.clientId,
        client_secret: confidential.clientSecret ?? '',
        token: tokens.refreshToken,
      }),
    )
    expect((await readJson(live)).active).toBe(true)
  })

  it('introspection: one 401 for every wrong client or resource-server secret', async () => {
    const tokens = await issue(server, { client: confidential })
    const prints = new Set<string>()
    const callers: Array<readonly [string, string]> = [
      [confidential.clientId, confidential.clientSecret ?? ''],
      [resourceServer.clientId, resourceServer.clientSecret ?? ''],
    ]
    for (const [clientId, realSecret] of callers) {
      for (const [what, secret] of wrongSecrets(realSecret)) {
        comparisons.mockClear()
        const response = await server.fetch(
          '/api/oauth/introspect',
          formInit({
            client_id: clientId,
            token: tokens.accessToken,
            ...(secret !== undefined && { client_secret: secret }),
          }),
        )
        expect(response.status, `${clientId}: ${what}`).toBe(401)
        expect(comparisons, what).toHaveBeenCalledTimes(secret ? 1 : 0)
        prints.add(await fingerprint(response))
      }
    }
    // An unknown resource server id fails the same way too.
    prints.add(
      await fingerprint(
        await server.fetch(
          '/api/oauth/introspect',
          formInit({ client_id: 'rs_unknown', client_secret: 'x', token: tokens.accessToken }),
        ),
      ),
    )
    expect(prints.size).toBe(1)
  })
})
