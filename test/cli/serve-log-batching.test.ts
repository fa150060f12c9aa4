import { describe, expect, it } from 'vitest'
import { useCliServer } from '../support/cli-server.js'

const start = useCliServer()

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
    const server = await start()
    const path = '/.well-known/oauth-authorization-server'
    await (await fetch(`${server.url}${path}`)).arrayBuffer()
    await until(() => requestLines(server.output(), path) > 0, 2000)
    expect(requestLines(server.output(), path)).toBe(1)
  })

  it('every line is written by a stop right after the requests, none lost in the batch', async () => {
    const server = await start()
    for (let i = 0; i < 20; i++)
      await (await fetch(`${server.url}/.well-known/jwks.json`)).arrayBuffer()
    expect(await server.stop()).toBe(0)
    expect(requestLines(server.output(), '/.well-known/jwks.json')).toBe(20)
  })
})
