import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readJson } from '../../support/http.js'
import { LOOPBACK, register } from '../../support/registration.js'
import { startTestServer, type TestServer } from '../../support/server.js'

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(async () => {
  await server?.close()
})

describe('health', () => {
  it('GET /healthz: the process is alive', async () => {
    const response = await server.fetch('/healthz')
    expect(response.status).toBe(200)
    expect(response.headers.get('cache-control')).toBe('no-store')
    expect(await readJson(response)).toEqual({ status: 'ok' })
  })

  it('GET /readyz: the database is reachable', async () => {
    const response = await server.fetch('/readyz')
    expect(response.status).toBe(200)
    expect(response.headers.get('cache-control')).toBe('no-store')
    expect(await readJson(response)).toEqual({ status: 'ok' })
  })
})

describe('errors outside the OAuth endpoints are RFC 9457 problem details', () => {
  it('answers an unknown path with a 404 application/problem+json and the request id', async () => {
    const response = await server.fetch('/no/such/path?secret=1')
    expect(response.status).toBe(404)
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/)
    const problem = await readJson(response)
    expect(problem).toMatchObject({ status: 404, title: 'Not Found' })
    expect(problem.type).toEqual(expect.any(String))
    expect(problem.request_id).toBe(response.headers.get('x-request-id'))
    expect(JSON.stringify(problem)).not.toContain('secret=1')
  })

  it('answers a wrong method on a known path with a problem too', async () => {
    const response = await server.fetch('/healthz', { method: 'DELETE' })
    expect(response.status).toBe(404)
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/)
  })
})

describe('logs: structured JSON, a request id per request, never a secret', () => {
  it('logs each request as JSON with its request id and without its query string', async () => {
    const response = await server.fetch('/healthz?token=abc123')
    const id = response.headers.get('x-request-id')
    expect(id).toBeTruthy()
    await new Promise((resolve) => setTimeout(resolve, 50))
    const line = server.logs.find((l) => l.request_id === id)
    expect(line).toMatchObject({ path: '/healthz', status: 200 })
    expect(server.logText()).not.toContain('abc123')
  })

  it('never writes a client_secret to the log', async () => {
    const answer = await register(server, {
      redirect_uris: [LOOPBACK],
      token_endpoint_auth_method: 'client_secret_post',
    })
    const secret = answer.body.client_secret as string
    expect(secret).toBeTruthy()
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(server.logs.some((l) => l.client_id === answer.body.client_id)).toBe(true)
    for (const line of server.logs) expect(JSON.stringify(line)).not.toContain(secret)
  })
})

describe('an unexpected failure is a 500 with a generic message and a request id', () => {
  it('keeps the cause in the log and out of the response', async () => {
    const broken = await startTestServer()
    try {
      await sql`drop table rate_limits`.execute(broken.deps.database.db)
      const answer = await register(broken, { redirect_uris: [LOOPBACK] })
      expect(answer.status).toBe(500)
      expect(answer.headers.get('cache-control')).toBe('no-store')
      expect(answer.body.error).toBe('server_error')
      const id = answer.headers.get('x-request-id') as string
      expect(answer.body.error_description).toContain(id)
      expect(JSON.stringify(answer.body)).not.toMatch(/rate_limits|sql|relation|table/i)
      await new Promise((resolve) => setTimeout(resolve, 50))
      const logged = broken.logs.find((l) => l.request_id === id && l.level === 50)
      expect(JSON.stringify(logged)).toMatch(/rate_limits/)
    } finally {
      await broken.close()
    }
  })
})
