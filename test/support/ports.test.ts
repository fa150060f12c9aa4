import { readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { freePort } from './ports.js'

const listening: Server[] = []
afterEach(async () => {
  await Promise.all(listening.splice(0).map((s) => new Promise((r) => s.close(r))))
})

function listen(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(port, '127.0.0.1', () => {
      listening.push(server)
      resolve(server)
    })
  })
}

describe('the ports tests start their servers on', () => {
  it('lie below the range the kernel picks local ports from, one after another', async () => {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').split(/\s+/)
    const first = await freePort()
    const second = await freePort()
    expect(first).toBeLessThan(Number(low))
    expect(second).toBeLessThan(Number(low))
    expect(second).not.toBe(first)
    // Handed out, not yet bound: still free to the caller it was handed to.
    await listen(first)
    await listen(second)
  })

  it('skip a port something else has bound', async () => {
    const taken = (await freePort()) + 1
    await listen(taken)
    const port = await freePort()
    expect(port).not.toBe(taken)
    await listen(port)
  })
})
