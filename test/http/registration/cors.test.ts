import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { LOOPBACK, REGISTER } from '../../support/registration.js'
import { startTestServer, type TestServer } from '../../support/server.js'

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(async () => {
  await server?.close()
})

const origin = 'https://web-tool.example'

describe('CORS is open for the registration endpoint', () => {
  it('answers a preflight for a JSON POST from any origin', async () => {
    const response = await server.fetch(REGISTER, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    })
    expect(response.status).toBeLessThan(300)
    expect(response.headers.get('access-control-allow-origin')).toBe('*')
    expect(response.headers.get('access-control-allow-methods')).toMatch(/\bPOST\b/)
    expect(response.headers.get('access-control-allow-headers')?.toLowerCase()).toContain(
      'content-type',
    )
  })

  it('lets the browser read the registration response', async () => {
    const response = await server.fetch(REGISTER, {
      method: 'POST',
      headers: { origin, 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [LOOPBACK] }),
    })
    expect(response.status).toBe(201)
    expect(response.headers.get('access-control-allow-origin')).toBe('*')
    expect(response.headers.get('access-control-allow-credentials')).toBeNull()
  })

  it('lets the browser read an error too', async () => {
    const response = await server.fetch(REGISTER, {
      method: 'POST',
      headers: { origin, 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: ['https://app.example/cb'] }),
    })
    expect(response.status).toBe(400)
    expect(response.headers.get('access-control-allow-origin')).toBe('*')
  })

  it('does not count a preflight as a registration', async () => {
    const counts = async () =>
      new Map(
        (
          await server.deps.database.db
            .selectFrom('rate_limits')
            .select(['key', 'window_start', 'count'])
            .execute()
        ).map((row) => [`${row.key} ${row.window_start}`, row.count]),
      )
    const before = await counts()
    await server.fetch(REGISTER, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST' },
    })
    // The sweeper may delete a window that expired meanwhile (a slow machine), so compare
    // what is left: no window is new and none counted one more.
    for (const [window, count] of await counts()) expect(before.get(window)).toBe(count)
  })
})
