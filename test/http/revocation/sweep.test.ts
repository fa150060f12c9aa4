import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sweep } from '../../../src/main.js'
import {
  authorizePath,
  Browser,
  createPerson,
  createPkce,
  registerTestClient,
} from '../../support/flow.js'
import { createTestClock, mintCode, postToken, refreshFields } from '../../support/grants.js'
import { readJson } from '../../support/http.js'
import { startTestServer, type TestServer } from '../../support/server.js'
import { ACCOUNT, callApi, issue, revoke, signIn } from '../../support/token-lifecycle.js'

const HOUR = 3_600_000
const DAY = 24 * HOUR

const clock = createTestClock()
let server: TestServer
beforeAll(async () => {
  server = await startTestServer({ clock })
})
afterAll(async () => {
  await server?.close()
})

type Table =
  | 'authorization_codes'
  | 'access_tokens'
  | 'refresh_tokens'
  | 'grants'
  | 'sessions'
  | 'authorization_requests'

const TABLES: readonly Table[] = [
  'authorization_codes',
  'access_tokens',
  'refresh_tokens',
  'grants',
  'sessions',
  'authorization_requests',
]

async function count(table: Table): Promise<number> {
  const row = await server.deps.database.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

async function counts(): Promise<Record<Table, number>> {
  const entries = await Promise.all(TABLES.map(async (t) => [t, await count(t)] as const))
  return Object.fromEntries(entries) as Record<Table, number>
}

async function clear(): Promise<void> {
  const { db } = server.deps.database
  for (const table of TABLES) await db.deleteFrom(table).execute()
}

describe('sweep(): expired codes, tokens, sessions and authorization requests are deleted', () => {
  it('deletes each kind once it has expired, and nothing that is still live', async () => {
    await clear()
    const person = await createPerson(server, 'student')
    // A session, a pending authorization request, an unused code, and issued tokens.
    await signIn(server, person)
    const pending = await new Browser(server).request(
      authorizePath(await registerTestClient(server), createPkce(), { scope: 'account:read' }),
    )
    expect(pending.status).toBe(303)
    const unused = await registerTestClient(server)
    await mintCode(server, unused, person.user, { scope: 'account:read' })
    const issued = await issue(server, { person, scope: 'account:read' })
    const start = await counts()
    expect(start).toEqual({
      authorization_codes: 2,
      access_tokens: 1,
      refresh_tokens: 1,
      grants: 2,
      sessions: 1,
      authorization_requests: 1,
    })

    // Nothing has expired yet: nothing goes.
    await sweep(server.deps)
    expect(await counts()).toEqual(start)

    // Two hours on: codes (an hour past expiry), access tokens and authorization requests go.
    clock.advance(2 * HOUR)
    await sweep(server.deps)
    expect(await counts()).toMatchObject({
      authorization_codes: 0,
      access_tokens: 0,
      authorization_requests: 0,
      refresh_tokens: 1,
      sessions: 1,
    })
    expect((await callApi(server, ACCOUNT, { token: issued.accessToken })).status).toBe(401)

    // The refresh token still works after the sweep, and its new access token survives one.
    const refreshed = await postToken(server, refreshFields(issued.client, issued.refreshToken))
    expect(refreshed.status).toBe(200)
    const { access_token, refresh_token } = await readJson(refreshed)
    await sweep(server.deps)
    expect((await callApi(server, ACCOUNT, { token: access_token })).status).toBe(200)

    // Past the session lifetime: the session goes.
    clock.advance(server.deps.config.lifetimes.session * 1000)
    await sweep(server.deps)
    expect(await count('sessions')).toBe(0)
    expect(await count('refresh_tokens')).toBeGreaterThan(0)

    // Past the refresh token lifetime: refresh tokens and their grants go.
    clock.advance(server.deps.config.lifetimes.refreshToken * 1000)
    await sweep(server.deps)
    expect(await counts()).toEqual({
      authorization_codes: 0,
      access_tokens: 0,
      refresh_tokens: 0,
      grants: 0,
      sessions: 0,
      authorization_requests: 0,
    })
    const dead = await postToken(server, refreshFields(issued.client, refresh_token))
    expect(dead.status).toBe(400)
  })

  it('deletes a revoked grant a day after its revocation, and leaves live grants alone', async () => {
    await clear()
    const revoked = await issue(server, { scope: 'account:read' })
    const live = await issue(server, { scope: 'account:read' })
    expect((await revoke(server, revoked.client, revoked.refreshToken)).status).toBe(200)
    await sweep(server.deps)
    expect(await server.deps.grants.findGrant(revoked.grantId)).toBeDefined()
    clock.advance(DAY + 1000)
    await sweep(server.deps)
    expect(await server.deps.grants.findGrant(revoked.grantId)).toBeUndefined()
    expect(await server.deps.grants.findGrant(live.grantId)).toBeDefined()
    expect((await postToken(server, refreshFields(live.client, live.refreshToken))).status).toBe(
      200,
    )
  })
})
