import { createServer } from 'node:http'
import type { Metrics } from '../platform/metrics.js'

/** The metrics listener: its address, and how to stop it. */
export interface MetricsServer {
  /** e.g. http://127.0.0.1:9464/metrics */
  readonly url: string
  close(): Promise<void>
}

/**
 * Serves `GET /metrics` in the Prometheus text format on a listener of its own, apart from
 * the public port, so that what the metrics reveal (routes, volumes, pool use) reaches only
 * whoever can reach that address: loopback unless the operator chooses otherwise.
 */
export async function startMetricsServer(
  metrics: Metrics,
  host: string,
  port: number,
): Promise<MetricsServer> {
  const server = createServer((request, response) => {
    if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n')
      return
    }
    metrics.registry.metrics().then(
      (text) => {
        response
          .writeHead(200, {
            'content-type': metrics.registry.contentType,
            'cache-control': 'no-store',
          })
          .end(text)
      },
      () => {
        response.writeHead(500, { 'content-type': 'text/plain' }).end('metrics failed\n')
      },
    )
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const address = server.address()
  const bound = typeof address === 'object' && address ? address.port : port
  const shownHost = host.includes(':') ? `[${host}]` : host
  return {
    url: `http://${shownHost}:${bound}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
