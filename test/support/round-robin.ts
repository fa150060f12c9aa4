import { createServer, request } from 'node:http'

/** A load balancer in front of instances: what listens on the issuer's address. */
export interface RoundRobin {
  /** How many requests each upstream received, in the order given. */
  readonly served: readonly number[]
  close(): Promise<void>
}

/**
 * Listens on 127.0.0.1:`port` and sends each request to the next of `upstreams` in turn,
 * headers (Host included) and body as received, as a round-robin balancer does. A browser
 * and an MCP client then use the issuer's URL and reach every instance by turns.
 */
export async function startRoundRobin(
  port: number,
  upstreams: readonly string[],
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
        headers: incoming.headers,
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
    served,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
