import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { CliError } from './http.js'

/** The browser's arrival at the callback: the authorization response, and a way to answer it. */
export interface Arrival {
  readonly params: URLSearchParams
  /** Shows the person a page saying how it ended, then stops listening. */
  reply(outcome: 'success' | 'failure', title: string, message: string): void
}

/** A one-shot listener on an ephemeral port of 127.0.0.1 (RFC 8252 §7.3). */
export interface CallbackListener {
  readonly redirectUri: string
  /** Resolves with the first request to /callback; rejects after `timeoutMs`. */
  arrival(timeoutMs: number): Promise<Arrival>
  close(): void
}

const PATH = '/callback'

export async function listenForCallback(): Promise<CallbackListener> {
  let deliver: ((arrival: Arrival) => void) | undefined
  let answered = false
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1')
    if (request.method !== 'GET' || url.pathname !== PATH) {
      return page(response, 404, 'Not found', 'portico-cli is waiting for the sign-in to finish.')
    }
    if (answered || !deliver) {
      return page(response, 409, 'Already answered', 'This sign-in has already been answered.')
    }
    answered = true
    deliver({
      params: url.searchParams,
      reply(outcome, title, message) {
        // Stop listening once the page is out; `connection: close` ends its socket.
        response.once('finish', () => server.close())
        page(response, outcome === 'success' ? 200 : 400, title, message)
      },
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const { port } = server.address() as AddressInfo
  return {
    redirectUri: `http://127.0.0.1:${port}${PATH}`,
    arrival(timeoutMs) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          reject(
            new CliError(
              `no answer from the browser within ${Math.round(timeoutMs / 60_000)} minutes; run login again`,
            ),
          )
        }, timeoutMs)
        deliver = (arrival) => {
          clearTimeout(timer)
          resolve(arrival)
        }
      })
    },
    close() {
      server.close()
      server.closeIdleConnections()
    },
  }
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

function page(response: ServerResponse, status: number, title: string, message: string): void {
  response.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
    'referrer-policy': 'no-referrer',
    connection: 'close',
  })
  response.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)} · portico-cli</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:34rem;margin:4rem auto;padding:0 1rem}</style></head>
<body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p></body></html>`)
}
