import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import type { Browser as Chromium } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchBrowser, newPage, saveScreenshot } from '../support/browser.js'
import { createPerson, type TestPerson } from '../support/flow.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { type CliHome, createCliHome, loginWithChromium, runCli } from './support.js'

/**
 * The server changes its mind while portico-cli holds tokens: an access token it no longer
 * takes (its clock moved past the expiry portico-cli expected), and a grant revoked from
 * the account page.
 */

let offset = 0
const clock = { now: () => Date.now() + offset }
let server: TestServer
let chromium: Chromium
let person: TestPerson
let home: CliHome

const sessionFile = () => path.join(home.configDir, 'session.json')
const readSession = () =>
  JSON.parse(readFileSync(sessionFile(), 'utf8')) as { accessToken: string; refreshToken: string }

beforeAll(async () => {
  server = await startTestServer({ clock })
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

describe('portico-cli when the server no longer takes its tokens', { timeout: 60_000 }, () => {
  it('api refreshes once and retries when the access token is answered 401 invalid_token', async () => {
    const before = readSession()
    offset += 2 * 3600_000 // past the access token's hour, well within the refresh token's month
    const { code, stdout, stderr } = await runCli(['api', 'GET', '/api/v1/account'], home.env)
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' })
    expect(JSON.parse(stdout)).toMatchObject({ object: 'account', id: person.user.id })
    const after = readSession()
    expect(after.accessToken).not.toBe(before.accessToken)
    expect(after.refreshToken).not.toBe(before.refreshToken)
  })

  it('asks to log in again when the grant was revoked on the account page', async () => {
    const page = await newPage(chromium)
    await page.goto(`${server.issuer}/login`)
    await page.fill('#email', person.email)
    await page.fill('#password', person.password)
    await Promise.all([page.waitForURL(/\/account/), page.click('button:has-text("Sign in")')])
    await Promise.all([
      page.waitForURL(/\/account/),
      page.click('button[aria-label="Revoke access of portico-cli"]'),
    ])
    await saveScreenshot(page, 'portico-cli-revoked-on-account-page')
    await page.context().close()

    const { code, stdout, stderr } = await runCli(['whoami'], home.env)
    expect(code).toBe(3)
    expect(stdout).toBe('')
    expect(stderr).toBe(
      `portico-cli: your sign-in at ${server.issuer} has ended: the refresh token was revoked ` +
        '(from the account page, by logging out elsewhere, or by an administrator) or has expired. ' +
        `Log in again: portico-cli login --server ${server.issuer} --scope 'openid profile email account:read'\n`,
    )
    expect(existsSync(sessionFile())).toBe(false)
    expect(existsSync(path.join(home.configDir, 'clients.json'))).toBe(true)

    const token = await runCli(['token'], home.env)
    expect(token.code).toBe(3)
    expect(token.stderr).toContain('not logged in')
  })
})
