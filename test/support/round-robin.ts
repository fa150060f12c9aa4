import { createServer, request } from 'node:http'
import type { AddressInfo } from 'node:net'

/** A load balancer in front of instances: what listens on the issuer's address. */
export interface RoundRobin {
  /** The port it listens on (the one asked for, or the one the system chose for 0). */
  readonly port: number
  /** How many requests each upstream received, in the order given. */
  readonly served: readonly number[]
  close(): Promise<void>
}

/**
 * Listens on 127.0.0.1:`port` and sends each request to the next of `upstreams` in turn,
 * headers (Host included) and body as received, as a round-robin balancer does. A browser
 * and an MCP client then use the issuer's URL and reach every instance by turns. `headers`
 * are added to each request (a bearer token for a client that cannot send one).
 */
export async function startRoundRobin(
  port: number,
  upstreams: readonly string[],
  headers: Readonly<Record<string, string>> = {},
): Promise<RoundRobin> {
  const served = upstreams.map(() => 0)
  let next = 0
  const server = createServer((incoming, outgoing) => {
    const index = next++ % upstreams.length
    served[index] = (served[index] ?? 0) + 1
    const upstream = new URL(upstreams[index] ?? '')
    const forwarded = request(
      {
        hostname: upstream.hostname,
        port: upstream.port,
        method: incoming.method,
        path: incoming.url,
        headers: { ...incoming.headers, ...headers },
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(outgoing)
      },
    )
    forwarded.once('error', () => {
      outgoing.writeHead(502)
      outgoing.end()
    })
    incoming.pipe(forwarded)
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', resolve)
  })
  return {
    port: (server.address() as AddressInfo).port,
    served,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
