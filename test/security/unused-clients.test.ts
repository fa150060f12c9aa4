import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { sweep } from '../../src/main.js'
import { TestClock } from '../http/authorize/support.js'
import {
  authorizePath,
  Browser,
  createPerson,
  createPkce,
  registerTestClient,
  runAuthorization,
  type TestClient,
} from '../support/flow.js'
import { startTestServer, type TestServer } from '../support/server.js'

/**
 * Issue 16, "Unauthenticated writes are bounded": open registration cannot fill the
 * database, because the server's own sweeper deletes a self-registered client that never
 * completed an authorization, 7 days (PORTICO_UNUSED_CLIENT_TTL) after it registered. Only
 * setInterval is faked, so the test fires the sweeper's timer; everything else runs for real.
 */

const DAY_MS = 86_400_000
const clock = new TestClock()
let server: TestServer
beforeAll(async () => {
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] })
  server = await startTestServer({ clock })
})
afterAll(async () => {
  await server?.close()
  vi.useRealTimers()
})

async function exists(client: TestClient): Promise<boolean> {
  const row = await server.deps.database.db
    .selectFrom('clients')
    .select('client_id')
    .where('client_id', '=', client.clientId)
    .executeTakeFirst()
  return row !== undefined
}

async function eventually(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out')
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

describe('self-registered clients that never complete an authorization', () => {
  it('are deleted by the background sweeper 7 days after registering; used and younger ones stay', async () => {
    expect(server.deps.config.unusedClientTtl).toBe(7 * 86400)
    const unused = await registerTestClient(server)
    const used = await registerTestClient(server)
    const midway = await registerTestClient(server)
    const person = await createPerson(server)
    const flow = await runAuthorization(server, used, person)
    expect(flow.code).toBeDefined()
    clock.advance(DAY_MS)
    const younger = await registerTestClient(server)

    clock.advance(6 * DAY_MS - 60_000)
    // Not yet 7 days old: a sweep (the sweeper's own function, awaited) leaves every client.
    await sweep(server.deps)
    expect(await exists(unused)).toBe(true)

    clock.advance(120_000)
    // One is in the middle of its first authorization when the sweeper comes.
    const pending = await new Browser(server).request(authorizePath(midway, createPkce()))
    expect(pending.status).toBe(303)
    vi.advanceTimersByTime(60_000)
    await eventually(async () => !(await exists(unused)))
    expect(await exists(used)).toBe(true)
    expect(await exists(younger)).toBe(true)
    expect(await exists(midway)).toBe(true)

    // The deleted client is unknown everywhere: an error page, never a redirect.
    const gone = await new Browser(server).request(authorizePath(unused, createPkce()))
    expect(gone.status).toBe(400)
    expect(gone.headers.get('location')).toBeNull()
    await gone.arrayBuffer()

    // Once its pending request has expired, the client that never finished goes too.
    clock.advance(11 * 60_000)
    vi.advanceTimersByTime(60_000)
    await eventually(async () => !(await exists(midway)))
    expect(await exists(used)).toBe(true)
  })
})
