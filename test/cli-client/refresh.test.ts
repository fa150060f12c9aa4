import { readFileSync } from 'node:fs'
import path from 'node:path'
import type { Browser as Chromium } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchBrowser } from '../support/browser.js'
import { createPerson, type TestPerson } from '../support/flow.js'
import { formInit, readJson } from '../support/http.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { type CliHome, createCliHome, loginWithChromium, runCli } from './support.js'

/**
 * Access tokens that live two seconds: portico-cli refreshes before using an expired one,
 * rotating the refresh token as Portico requires, without the person noticing.
 */

let server: TestServer
let chromium: Chromium
let person: TestPerson
let home: CliHome

interface StoredSession {
  accessToken: string
  refreshToken: string
  clientId: string
  expiresAt: number
}
const readSession = () =>
  JSON.parse(readFileSync(path.join(home.configDir, 'session.json'), 'utf8')) as StoredSession

beforeAll(async () => {
  server = await startTestServer({ env: { PORTICO_ACCESS_TOKEN_TTL: '2' } })
  chromium = await launchBrowser()
  person = await createPerson(server, 'owner')
  home = createCliHome()
  const { result, page } = await loginWithChromium(chromium, home, server.issuer, person)
  await page.context().close()
  if (result.code !== 0) throw new Error(`login failed: ${result.stderr}`)
})
afterAll(async () => {
  await chromium?.close()
  await server?.close()
  home?.remove()
})

/** Waits until the stored access token has expired for the server too. */
async function untilExpired(session: StoredSession): Promise<void> {
  await new Promise((resolve) =>
    setTimeout(resolve, Math.max(0, session.expiresAt - Date.now() + 50)),
  )
  const probe = await server.fetch('/api/v1', {
    headers: { authorization: `Bearer ${session.accessToken}` },
  })
  expect(probe.status).toBe(401)
}

describe('portico-cli with short-lived access tokens', { timeout: 60_000 }, () => {
  it('token refreshes an expired access token and stores the rotated refresh token', async () => {
    const before = readSession()
    await untilExpired(before)
    const { code, stdout, stderr } = await runCli(['token'], home.env)
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' })
    const after = readSession()
    expect(stdout).toBe(`${after.accessToken}\n`)
    expect(after.accessToken).not.toBe(before.accessToken)
    expect(after.refreshToken).not.toBe(before.refreshToken)
    expect(after.expiresAt).toBeGreaterThan(before.expiresAt)

    const fresh = await server.fetch('/api/v1/account', {
      headers: { authorization: `Bearer ${after.accessToken}` },
    })
    expect(fresh.status).toBe(200)
    const old = await server.fetch(
      '/api/oauth/token',
      formInit({
        grant_type: 'refresh_token',
        refresh_token: before.refreshToken,
        client_id: before.clientId,
      }),
    )
    expect((await readJson(old)).error).toBe('invalid_grant')
  })

  it('api and whoami refresh by themselves once the token has expired', async () => {
    await untilExpired(readSession())
    const api = await runCli(['api', 'GET', '/api/v1/account'], home.env)
    expect({ code: api.code, stderr: api.stderr }).toEqual({ code: 0, stderr: '' })
    expect(JSON.parse(api.stdout)).toMatchObject({ id: person.user.id })

    await untilExpired(readSession())
    const whoami = await runCli(['whoami'], home.env)
    expect(whoami.code).toBe(0)
    expect(whoami.stdout).toContain(`subject  ${person.user.id}`)
  })

  it('two processes refreshing at once both end with the tokens of the one that won', async () => {
    await untilExpired(readSession())
    const [first, second] = await Promise.all([
      runCli(['token'], home.env),
      runCli(['token'], home.env),
    ])
    expect([first.code, second.code, first.stderr, second.stderr]).toEqual([0, 0, '', ''])
    expect(first.stdout).toBe(second.stdout)
    expect(first.stdout).toBe(`${readSession().accessToken}\n`)
  })
})
