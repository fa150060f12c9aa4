import { afterEach, describe, expect, it } from 'vitest'
import { type CliServer, startCliServer } from '../support/cli-server.js'
import { createTestDatabase, type TestDatabase } from '../support/databases.js'

const SECRET = 'test-secret-test-secret-test-secret-0123'

let database: TestDatabase | undefined
let server: CliServer | undefined
afterEach(async () => {
  await server?.stop()
  server = undefined
  await database?.drop()
  database = undefined
})

async function until(holds: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms
  while (!holds() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
}

/** The request lines `portico serve` printed for `path`. */
function requestLines(output: string, path: string): number {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.msg === 'request' && line.path === path).length
}

describe('portico serve writes its log in batches', () => {
  it('a lone request line, far short of a batch, is written within moments', async () => {
    database = await createTestDatabase()
    server = await startCliServer({
      DATABASE_URL: database.url,
      PORTICO_KEY_ENCRYPTION_SECRET: SECRET,
    })
    const path = '/.well-known/oauth-authorization-server'
    await (await fetch(`${server.url}${path}`)).arrayBuffer()
    await until(() => requestLines(server?.output() ?? '', path) > 0, 2000)
    expect(requestLines(server.output(), path)).toBe(1)
  })

  it('every line is written by a stop right after the requests, none lost in the batch', async () => {
    database = await createTestDatabase()
    server = await startCliServer({
      DATABASE_URL: database.url,
      PORTICO_KEY_ENCRYPTION_SECRET: SECRET,
    })
    for (let i = 0; i < 20; i++)
      await (await fetch(`${server.url}/.well-known/jwks.json`)).arrayBuffer()
    expect(await server.stop()).toBe(0)
    expect(requestLines(server.output(), '/.well-known/jwks.json')).toBe(20)
  })
})
