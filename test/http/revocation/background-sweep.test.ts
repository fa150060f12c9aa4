import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createTestClock } from '../../support/grants.js'
import { startTestServer, type TestServer } from '../../support/server.js'
import { issue, signIn } from '../../support/token-lifecycle.js'

/**
 * The server sweeps on a timer of its own. Only setInterval is faked, so the test can fire
 * that timer; everything else (sockets, database, setTimeout) runs for real.
 */
const clock = createTestClock()
let server: TestServer
beforeAll(async () => {
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] })
  server = await startTestServer({ clock })
})
afterAll(async () => {
  await server?.close()
  vi.useRealTimers()
})

async function rows(table: 'access_tokens' | 'sessions' | 'authorization_codes') {
  return (await server.deps.database.db.selectFrom(table).selectAll().execute()).length
}

async function eventually(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out')
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

describe('the background sweeper of a running server', () => {
  it('deletes expired tokens and sessions within a minute, without anyone calling sweep()', async () => {
    const issued = await issue(server, { role: 'student', scope: 'account:read' })
    await signIn(server, issued.person)
    expect(await rows('access_tokens')).toBe(1)
    expect(await rows('sessions')).toBe(1)
    clock.advance(server.deps.config.lifetimes.session * 1000 + 1000)
    vi.advanceTimersByTime(60_000)
    await eventually(async () => (await rows('access_tokens')) === 0)
    await eventually(async () => (await rows('sessions')) === 0)
    expect(await rows('authorization_codes')).toBe(0)
  })
})
