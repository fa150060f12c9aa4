import { type IncomingMessage, request } from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import { digest } from '../../src/platform/crypto.js'
import { registerTestClient, runAuthorization } from '../support/flow.js'
import { type Instances, startInstances } from '../support/instances.js'

let cluster: Instances | undefined
afterEach(async () => {
  await cluster?.stop()
  cluster = undefined
})

/** A token request whose body is sent in two parts, so it stays in flight between them. */
function slowTokenRequest(url: string, body: string) {
  const { hostname, port } = new URL(url)
  const req = request({
    host: hostname,
    port,
    method: 'POST',
    path: '/api/oauth/token',
    agent: false,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'content-length': Buffer.byteLength(body),
    },
  })
  const answered = new Promise<{ status: number; text: string }>((resolve, reject) => {
    req.on('response', (res: IncomingMessage) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => {
        text += chunk
      })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }))
      res.on('error', reject)
    })
    req.on('error', reject)
  })
  const half = Math.floor(body.length / 2)
  req.write(body.slice(0, half))
  return { answered, finish: () => req.end(body.slice(half)) }
}

async function until(check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out waiting')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** Resolves with the exit code, or 'running' if the process is still up after `ms`. */
function exitWithin(exited: Promise<number | null>, ms: number) {
  return Promise.race([
    exited,
    new Promise<'running'>((resolve) => setTimeout(() => resolve('running'), ms)),
  ])
}

describe('SIGTERM: stop accepting, finish what is in flight, close the database, exit', () => {
  it('finishes a token request in flight, stores its tokens, then exits 0', async () => {
    cluster = await startInstances(1, { env: { PORTICO_SHUTDOWN_GRACE: '10' } })
    const [server] = cluster.servers
    if (!server) throw new Error('no server')
    const client = await registerTestClient(cluster.at(0))
    const flow = await runAuthorization(cluster.at(0), client, await cluster.person())
    const body = new URLSearchParams({
      grant_type: 'authorization_code',
      code: flow.code ?? '',
      client_id: client.clientId,
      redirect_uri: client.redirectUri,
      code_verifier: flow.pkce.verifier,
    }).toString()

    const slow = slowTokenRequest(server.url, body)
    await new Promise((resolve) => setTimeout(resolve, 200))
    const signalledAt = Date.now()
    server.kill('SIGTERM')
    await until(() => server.output().includes('shutting down'), 5000)

    // No new connections, while the request in flight keeps the process up.
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow()
    expect(await exitWithin(server.exited, 500)).toBe('running')

    slow.finish()
    const answer = await slow.answered
    expect(answer.status).toBe(200)
    const tokens = JSON.parse(answer.text) as { access_token: string; refresh_token: string }
    expect(await exitWithin(server.exited, 5000)).toBe(0)
    expect(Date.now() - signalledAt).toBeLessThan(10_000)
    expect(server.output()).toMatch(/"msg":"stopped"/)

    // Nothing half-written: both tokens of the answered request are in the database.
    expect(await cluster.deps.grants.findAccessToken(digest(tokens.access_token))).toBeDefined()
    expect(await cluster.deps.grants.findRefreshToken(digest(tokens.refresh_token))).toBeDefined()
  })

  it('cuts a request that does not finish within the grace, and exits in bounded time', async () => {
    cluster = await startInstances(1, { env: { PORTICO_SHUTDOWN_GRACE: '1' } })
    const [server] = cluster.servers
    if (!server) throw new Error('no server')
    const stalled = slowTokenRequest(server.url, 'grant_type=refresh_token&refresh_token=prt_x')
    const outcome = stalled.answered.then(
      () => 'answered',
      () => 'cut',
    )
    await new Promise((resolve) => setTimeout(resolve, 200))
    const signalledAt = Date.now()
    server.kill('SIGTERM')
    expect(await exitWithin(server.exited, 6000)).toBe(1)
    const took = Date.now() - signalledAt
    expect(took).toBeGreaterThanOrEqual(900)
    expect(took).toBeLessThan(6000)
    expect(await outcome).toBe('cut')
    expect(server.output()).toContain('did not finish in time')
  })
})
