import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { type CliServer, startCliServer } from '../support/cli-server.js'
import { MEMORY_PROBE_NODE_OPTIONS, measureMemory } from '../support/memory.js'

let server: CliServer | undefined
let dir: string | undefined
afterEach(async () => {
  await server?.stop()
  server = undefined
  if (dir) rmSync(dir, { recursive: true, force: true })
  dir = undefined
})

describe('portico serve on SQLite, without Redis', () => {
  it('has not loaded the PostgreSQL driver, the Redis client or the outbound HTTP client', async () => {
    // Always SQLite, whatever database the suite runs on: what such a deployment holds.
    dir = mkdtempSync(path.join(os.tmpdir(), 'portico-packages-'))
    server = await startCliServer({
      DATABASE_URL: `sqlite://${path.join(dir, 'portico.db')}`,
      PORTICO_KEY_ENCRYPTION_SECRET: 'test-secret-test-secret-test-secret-0123',
      NODE_OPTIONS: MEMORY_PROBE_NODE_OPTIONS,
    })
    // Requests through the API's pipeline first (the public catalogue, a refused token): nothing
    // on the way loads them either.
    expect((await fetch(`${server.url}/api/v1/courses`)).status).toBe(200)
    const refused = await fetch(`${server.url}/api/v1/account`, {
      headers: { authorization: 'Bearer not-a-token' },
    })
    expect(refused.status).toBe(401)
    const { packages } = await measureMemory(server)
    // The probe sees what the server loaded (its SQLite driver, its HTTP framework)...
    expect(packages).toContain('fastify')
    expect(packages.some((name) => name.startsWith('better-sqlite3'))).toBe(true)
    // ...and none of what only PostgreSQL, Redis or a metadata document's fetch needs.
    expect(packages.filter((name) => ['pg', 'ioredis', 'undici'].includes(name))).toEqual([])
  })
})
