import { request } from 'node:http'
import { type Json, jsonInit, readJson } from './http.js'
import type { TestServer } from './server.js'

export const REGISTER = '/api/oauth/register'

/** A redirect URI that self-service registration accepts. */
export const LOOPBACK = 'http://127.0.0.1:8080/callback'

export interface Answer {
  readonly status: number
  readonly headers: Headers
  readonly body: Json
}

/** POSTs a registration request (a value, or raw JSON text when a string). */
export async function register(
  server: TestServer,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const response = await server.fetch(REGISTER, jsonInit(body, headers))
  return { status: response.status, headers: response.headers, body: await readJson(response) }
}

/** How many clients the server's database holds, read directly from the table. */
export async function countClients(server: TestServer): Promise<number> {
  const row = await server.deps.database.db
    .selectFrom('clients')
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

export interface RawAnswer {
  readonly status: number
  readonly headers: Record<string, string | string[] | undefined>
  readonly text: string
}

/**
 * A request through node:http, for what fetch() will not send: no Content-Type at all,
 * chunked bodies, or a chosen loopback source address.
 */
export function rawRequest(
  url: string,
  options: {
    method?: string
    headers?: Record<string, string>
    body?: string | Buffer
    localAddress?: string
  } = {},
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: options.method ?? 'POST',
        headers: options.headers,
        localAddress: options.localAddress,
        timeout: 10_000,
      },
      (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => {
          text += chunk
        })
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }))
      },
    )
    req.on('timeout', () => req.destroy(new Error('request timed out')))
    req.on('error', reject)
    req.end(options.body)
  })
}
