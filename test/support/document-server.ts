import type { IncomingMessage, ServerResponse } from 'node:http'
import { createServer, type Server } from 'node:https'
import type { AddressInfo } from 'node:net'
import selfsigned from 'selfsigned'

/**
 * A local HTTPS server for Client ID Metadata Documents, with a certificate the test makes
 * itself. Portico trusts it because the test hands Portico the certificate as its CA
 * (startTestServer({ outbound: { ca } })); verification is never turned off.
 */

export type Handler = (request: IncomingMessage, response: ServerResponse) => void

export interface DocumentServer {
  /** `https://127.0.0.1:<port>` (or the host it listens on). */
  readonly origin: string
  readonly port: number
  /** The certificate, which is its own certificate authority. */
  readonly ca: string
  /** The full URL of `path` on this server. */
  url(path: string): string
  /** Serves `path` with `handler`. */
  route(path: string, handler: Handler): void
  /** Serves `body` as JSON (or with the given content type and headers). */
  json(path: string, body: unknown, headers?: Record<string, string>): void
  /** How many requests `path` received. */
  hits(path: string): number
  close(): Promise<void>
}

export interface Certificate {
  readonly key: string
  readonly cert: string
}

/** A certificate for the loopback addresses and the `*.portico.test` names tests resolve. */
export async function makeCertificate(): Promise<Certificate> {
  const pems = await selfsigned.generate([{ name: 'commonName', value: 'portico.test' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'portico.test' },
          { type: 2, value: '*.portico.test' },
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '127.0.0.2' },
        ],
      },
    ],
  })
  return { key: pems.private, cert: pems.cert }
}

export async function startDocumentServer(
  certificate: Certificate,
  host = '127.0.0.1',
  port = 0,
): Promise<DocumentServer> {
  const routes = new Map<string, Handler>()
  const counts = new Map<string, number>()
  const server: Server = createServer(
    { key: certificate.key, cert: certificate.cert },
    (request, response) => {
      const path = (request.url ?? '/').split('?')[0] ?? '/'
      counts.set(path, (counts.get(path) ?? 0) + 1)
      const handler = routes.get(path)
      if (handler) return handler(request, response)
      response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}')
    },
  )
  await new Promise<void>((resolve) => server.listen(port, host, resolve))
  const listening = (server.address() as AddressInfo).port
  const origin = `https://${host}:${listening}`
  return {
    origin,
    port: listening,
    ca: certificate.cert,
    url: (path) => `${origin}${path}`,
    route: (path, handler) => routes.set(path, handler),
    json(path, body, headers = {}) {
      routes.set(path, (_request, response) => {
        response
          .writeHead(200, { 'content-type': 'application/json', ...headers })
          .end(typeof body === 'string' ? body : JSON.stringify(body))
      })
    },
    hits: (path) => counts.get(path) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
