import { readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import type { Browser as Chromium } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchBrowser } from '../support/browser.js'
import { createPerson, type TestPerson } from '../support/flow.js'
import { formInit, readJson } from '../support/http.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { type CliHome, createCliHome, loginWithChromium, runCli } from './support.js'

/**
 * portico-cli end to end against a started Portico, the person's part played in Chromium on
 * the real sign-in and consent pages: login, whoami, token, api, logout.
 */

let server: TestServer
let chromium: Chromium
let person: TestPerson
let home: CliHome

beforeAll(async () => {
  server = await startTestServer()
  chromium = await launchBrowser()
  person = await createPerson(server, 'owner')
  home = createCliHome()
})
afterAll(async () => {
  await chromium?.close()
  await server?.close()
  home?.remove()
})

const registrations = () => server.logs.filter((l) => l.msg === 'client registered').length
const readSession = () =>
  JSON.parse(readFileSync(path.join(home.configDir, 'session.json'), 'utf8')) as {
    accessToken: string
    refreshToken: string
    clientId: string
  }

describe('portico-cli login', { timeout: 60_000 }, () => {
  it('registers once, signs in through the browser, and stores the tokens privately', async () => {
    const { result, page } = await loginWithChromium(chromium, home, server.issuer, person, {
      screenshot: 'portico-cli-login',
    })
    expect(result.stderr).toContain(`Registered portico-cli at ${server.issuer} as pci_`)
    expect(result.stderr).toContain(
      `Logged in to ${server.issuer} with scopes: openid profile email account:read`,
    )
    expect(result.code).toBe(0)
    expect(result.stdout).toBe('')
    expect(await page.textContent('h1')).toBe('Logged in')
    await page.context().close()

    expect(statSync(home.configDir).mode & 0o777).toBe(0o700)
    for (const file of ['session.json', 'clients.json']) {
      expect(statSync(path.join(home.configDir, file)).mode & 0o777).toBe(0o600)
    }
    const session = readSession()
    expect(session.accessToken).toMatch(/^pat_/)
    expect(session.refreshToken).toMatch(/^prt_/)
    const clients = JSON.parse(readFileSync(path.join(home.configDir, 'clients.json'), 'utf8'))
    expect(Object.keys(clients)).toEqual([server.issuer])
    expect(registrations()).toBe(1)
  })

  it('whoami names the person, the role, the client and the scopes', async () => {
    const { code, stdout, stderr } = await runCli(['whoami'], home.env)
    expect(stderr).toBe('')
    expect(code).toBe(0)
    expect(stdout).toContain(`Logged in to ${server.issuer}`)
    expect(stdout).toContain(`as       ${person.user.name} <${person.email}>`)
    expect(stdout).toContain('role     owner')
    expect(stdout).toContain(`subject  ${person.user.id}`)
    expect(stdout).toContain(`client   ${readSession().clientId}`)
    expect(stdout).toContain('scopes   openid profile email account:read')
  })

  it('token prints the stored access token while it is valid', async () => {
    const { code, stdout } = await runCli(['token'], home.env)
    expect(code).toBe(0)
    expect(stdout).toBe(`${readSession().accessToken}\n`)
  })

  it('api GET /api/v1/account prints the JSON answer', async () => {
    const { code, stdout, stderr } = await runCli(['api', 'GET', '/api/v1/account'], home.env)
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' })
    expect(JSON.parse(stdout)).toMatchObject({ object: 'account', email: person.email })
  })

  it('api shows problem details readably and exits 1 (403 for a missing scope)', async () => {
    const { code, stdout, stderr } = await runCli(
      ['api', 'PATCH', '/api/v1/account', '--data', '{"bio":"hello"}'],
      home.env,
    )
    expect(code).toBe(1)
    expect(stdout).toBe('')
    expect(stderr).toMatch(
      /^portico-cli: 403 Forbidden: this operation needs the account:write scope/,
    )
    expect(stderr).toContain('type: https://portico.dev/problems/insufficient-scope')
    expect(stderr).toMatch(/request id: \S+/)
  })

  it('a second login reuses the registration and asks for the scopes given', async () => {
    const { result } = await loginWithChromium(chromium, home, server.issuer, person, {
      scope: 'openid profile account:read account:write',
    })
    expect(result.code).toBe(0)
    expect(result.stderr).not.toContain('Registered')
    expect(registrations()).toBe(1)

    const updated = await runCli(
      ['api', 'PATCH', '/api/v1/account', '--data', '{"bio":"Teaches from the terminal"}'],
      home.env,
    )
    expect(updated.code).toBe(0)
    expect(JSON.parse(updated.stdout)).toMatchObject({ bio: 'Teaches from the terminal' })

    const invalid = await runCli(
      ['api', 'PATCH', '/api/v1/account', '--data', '{"locale":"not a locale"}'],
      home.env,
    )
    expect(invalid.code).toBe(1)
    expect(invalid.stderr).toMatch(/^portico-cli: 422 Unprocessable Content: /)
    expect(invalid.stderr).toMatch(/\n {2}- locale: /)
  })

  it('refuses bad input before anything is sent', async () => {
    const notJson = await runCli(['api', 'POST', '/api/v1/account', '--data', '{oops'], home.env)
    expect(notJson.code).toBe(2)
    expect(notJson.stderr).toContain('--data is not valid JSON')
    const elsewhere = await runCli(['api', 'GET', 'https://example.com/steal'], home.env)
    expect(elsewhere.code).toBe(1)
    expect(elsewhere.stderr).toContain('refusing to send your token to https://example.com')
    const usage = await runCli(['api', 'GET'], home.env)
    expect(usage.code).toBe(2)
    expect(usage.stderr).toContain('usage: portico-cli api METHOD PATH')
  })

  it('logout revokes the refresh token at the server and forgets the tokens', async () => {
    const { refreshToken, clientId } = readSession()
    const { code, stderr } = await runCli(['logout'], home.env)
    expect({ code, stderr }).toMatchObject({ code: 0 })
    expect(stderr).toContain(`Logged out of ${server.issuer}: the refresh token was revoked`)

    const refresh = await server.fetch(
      '/api/oauth/token',
      formInit({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId }),
    )
    expect((await readJson(refresh)).error).toBe('invalid_grant')

    const whoami = await runCli(['whoami'], home.env)
    expect(whoami.code).toBe(3)
    expect(whoami.stderr).toBe(
      'portico-cli: not logged in. Run: portico-cli login --server <url>\n',
    )
    const again = await runCli(['logout'], home.env)
    expect(again.code).toBe(0)
    expect(again.stderr).toContain('Not logged in; nothing to do.')
  })
})
