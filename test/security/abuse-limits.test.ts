import { connect, type Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConfigError, parseConfig } from '../../src/config.js'
import { Browser, createPerson, formField, type TestPerson } from '../support/flow.js'
import { rawRequest } from '../support/registration.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { issue } from '../support/token-lifecycle.js'
import { snapshot } from './support.js'

/**
 * Abuse limits (RFC 9110 §15.5.14 413 Content Too Large, §15.5.9 408 Request Timeout):
 * every POST endpoint bounds its body and answers 413 in its own error format, however the
 * body is framed; and a client that trickles its request (slowloris) is cut off once
 * PORTICO_REQUEST_TIMEOUT has passed, without holding the server.
 */

const REQUEST_TIMEOUT_S = 2

let server: TestServer
let person: TestPerson
let accessToken: string

beforeAll(async () => {
  server = await startTestServer({ env: { PORTICO_REQUEST_TIMEOUT: String(REQUEST_TIMEOUT_S) } })
  person = await createPerson(server)
  accessToken = (await issue(server, { person, scope: 'openid account:read account:write' }))
    .accessToken
})
afterAll(async () => {
  await server?.close()
})

type Format = 'oauth' | 'problem' | 'html'

/** Every endpoint that takes a body, with the content type it reads and its error format. */
const ENDPOINTS: ReadonlyArray<
  readonly [method: string, path: string, type: string, format: Format]
> = [
  ['POST', '/api/oauth/register', 'application/json', 'oauth'],
  ['POST', '/api/oauth/token', 'application/x-www-form-urlencoded', 'oauth'],
  ['POST', '/api/oauth/revoke', 'application/x-www-form-urlencoded', 'oauth'],
  ['POST', '/api/oauth/introspect', 'application/x-www-form-urlencoded', 'oauth'],
  ['POST', '/api/oauth/userinfo', 'application/x-www-form-urlencoded', 'oauth'],
  ['PATCH', '/api/v1/account', 'application/json', 'problem'],
  ['POST', '/oauth/authorize', 'application/x-www-form-urlencoded', 'html'],
  ['POST', '/oauth/authorize/decision', 'application/x-www-form-urlencoded', 'html'],
  ['POST', '/login', 'application/x-www-form-urlencoded', 'html'],
  ['POST', '/logout', 'application/x-www-form-urlencoded', 'html'],
  ['POST', '/account/connections/revoke', 'application/x-www-form-urlencoded', 'html'],
]

/** A body of `size` bytes that parses as the given content type. */
function bodyOf(type: string, size: number): string {
  if (type === 'application/json') return `{"client_name":"${'a'.repeat(size - 20)}"}`
  return `csrf=x&padding=${'a'.repeat(size - 15)}`
}

function expectFormat(
  response: { status: number; headers: Record<string, unknown>; text: string },
  format: Format,
) {
  const type = String(response.headers['content-type'] ?? '')
  if (format === 'oauth') {
    expect(type).toMatch(/^application\/json/)
    expect(JSON.parse(response.text).error).toBe('invalid_request')
  } else if (format === 'problem') {
    expect(type).toMatch(/^application\/problem\+json/)
    expect(JSON.parse(response.text).status).toBe(413)
  } else {
    expect(type).toMatch(/^text\/html/)
    expect(response.headers.location).toBeUndefined()
    expect(response.text).toMatch(/^<!doctype html>/)
  }
}

describe('RFC 9110 §15.5.14: every body is bounded (64 KiB) and answered 413 in the endpoint’s format', () => {
  for (const [method, path, type, format] of ENDPOINTS) {
    it(`${method} ${path}: 413 ${format} for 65 KiB with a Content-Length, and for 200 KiB chunked`, async () => {
      const before = await snapshot(server)
      const headers = { 'content-type': type, authorization: `Bearer ${accessToken}` }
      const sized = await rawRequest(`${server.issuer}${path}`, {
        method,
        headers,
        body: bodyOf(type, 65 * 1024),
      })
      expect(sized.status).toBe(413)
      expectFormat(sized, format)
      const chunked = await rawRequest(`${server.issuer}${path}`, {
        method,
        headers: { ...headers, 'transfer-encoding': 'chunked' },
        body: bodyOf(type, 200 * 1024),
      })
      expect(chunked.status).toBe(413)
      expectFormat(chunked, format)
      expect(await snapshot(server)).toEqual(before)
    })
  }
})

interface Cut {
  /** Milliseconds from the first byte until the server closed the connection. */
  readonly afterMs: number
  /** What the server sent before closing. */
  readonly answer: string
  /** Bytes the client had managed to send. */
  readonly sent: number
}

/**
 * Opens a raw connection, sends `head`, then one byte of `trickle` every `everyMs`, and
 * reports when the server closes the connection (or gives up after `giveUpMs`). With
 * `answered`, it stops as soon as the server's answer matches it.
 */
function trickle(
  head: string,
  trickleBytes: string,
  everyMs: number,
  giveUpMs: number,
  answered?: RegExp,
): Promise<Cut> {
  const url = new URL(server.issuer)
  return new Promise((resolve, reject) => {
    const started = Date.now()
    let answer = ''
    let sent = 0
    let timer: NodeJS.Timeout | undefined
    const socket: Socket = connect(Number(url.port), url.hostname, () => {
      socket.write(head)
      sent += head.length
      let i = 0
      timer = setInterval(() => {
        if (i < trickleBytes.length && !socket.destroyed) {
          socket.write(trickleBytes[i] ?? '')
          sent += 1
          i += 1
        }
      }, everyMs)
    })
    const giveUp = setTimeout(() => {
      socket.destroy()
      reject(new Error(`the server kept a trickling connection open for ${giveUpMs} ms`))
    }, giveUpMs)
    socket.setEncoding('utf8')
    socket.on('data', (chunk: string) => {
      answer += chunk
      if (answered?.test(answer)) socket.destroy()
    })
    socket.on('error', () => {})
    socket.on('close', () => {
      clearInterval(timer)
      clearTimeout(giveUp)
      resolve({ afterMs: Date.now() - started, answer, sent })
    })
  })
}

describe('RFC 9110 §15.5.9: a client that trickles its request is cut off (slowloris)', () => {
  it('reads PORTICO_REQUEST_TIMEOUT in seconds, 30 by default, and refuses nonsense', () => {
    expect(parseConfig({}).requestTimeout).toBe(30)
    expect(parseConfig({ PORTICO_REQUEST_TIMEOUT: '5' }).requestTimeout).toBe(5)
    for (const bad of ['0', '-1', '1.5', 'soon', '601']) {
      expect(() => parseConfig({ PORTICO_REQUEST_TIMEOUT: bad }), bad).toThrow(ConfigError)
    }
  })

  it('cuts off a token request whose body arrives one byte every 150 ms, with 408', async () => {
    const host = new URL(server.issuer).host
    const body = `grant_type=refresh_token&client_id=x&refresh_token=${'a'.repeat(200)}`
    const head =
      `POST /api/oauth/token HTTP/1.1\r\nHost: ${host}\r\n` +
      `Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n`
    const cut = await trickle(head, body, 150, 10_000)
    expect(cut.afterMs).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_S * 1000 - 100)
    expect(cut.afterMs).toBeLessThan(REQUEST_TIMEOUT_S * 1000 + 2500)
    expect(cut.sent).toBeLessThan(head.length + body.length)
    expect(cut.answer).toMatch(/^HTTP\/1\.1 408 /)
  })

  it('cuts off a sign-in form trickled the same way', async () => {
    const host = new URL(server.issuer).host
    const body = `csrf=x&email=a%40b.c&password=${'p'.repeat(200)}`
    const head =
      `POST /login HTTP/1.1\r\nHost: ${host}\r\n` +
      `Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n`
    const cut = await trickle(head, body, 150, 10_000)
    expect(cut.afterMs).toBeLessThan(REQUEST_TIMEOUT_S * 1000 + 2500)
    expect(cut.sent).toBeLessThan(head.length + body.length)
  })

  it('cuts off a client that trickles its headers and never finishes them', async () => {
    const host = new URL(server.issuer).host
    const cut = await trickle(
      `GET /healthz HTTP/1.1\r\nHost: ${host}\r\n`,
      `X-Slow: ${'a'.repeat(500)}`,
      150,
      10_000,
    )
    expect(cut.afterMs).toBeLessThan(REQUEST_TIMEOUT_S * 1000 + 2500)
    expect(cut.answer).not.toMatch(/^HTTP\/1\.1 200/)
  })

  it('still serves everyone else meanwhile, and a slow-but-finished request is answered', async () => {
    const host = new URL(server.issuer).host
    const slow = trickle(
      `GET /healthz HTTP/1.1\r\nHost: ${host}\r\n`,
      'X-Slow: 1\r\n\r\n',
      30,
      10_000,
      /\r\n\r\n[\s\S]*"status"/,
    )
    expect((await server.fetch('/healthz')).status).toBe(200)
    const browser = new Browser(server)
    const page = await (await browser.request('/login')).text()
    expect(formField(page, 'csrf')).toBeTruthy()
    const finished = await slow
    // Finished well within the timeout: answered 200.
    expect(finished.answer).toMatch(/^HTTP\/1\.1 200 /)
  })
})
