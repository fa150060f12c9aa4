import { existsSync } from 'node:fs'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { collectPageErrors, launchBrowser, newPage, saveScreenshot } from '../support/browser.js'
import { authorizePath, createPerson, createPkce, registerTestClient } from '../support/flow.js'
import { postToken, refreshFields } from '../support/grants.js'
import { readJson } from '../support/http.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { ACCOUNT, callApi, introspect } from '../support/token-lifecycle.js'

let server: TestServer
let browser: Browser
beforeAll(async () => {
  server = await startTestServer()
  browser = await launchBrowser()
})
afterAll(async () => {
  await browser?.close()
  await server?.close()
})

describe('the connected-apps page in Chromium', () => {
  it('approve a tool, see it listed, revoke it, and watch its token fail', async () => {
    const person = await createPerson(server, 'lecturer')
    const tool = await registerTestClient(server, { client_name: 'Lecture Notes Helper' })
    const pkce = createPkce()
    const page = await newPage(browser)
    const errors = collectPageErrors(page)
    // The tool's callback: nothing listens there, so the browser is answered here.
    await page.route(`${tool.redirectUri}**`, (route) =>
      route.fulfill({ status: 200, contentType: 'text/plain', body: 'callback reached' }),
    )

    // Sign in through the real pages and approve the tool.
    await page.goto(
      `${server.issuer}${authorizePath(tool, pkce, { scope: 'openid account:read courses:read' })}`,
    )
    expect(new URL(page.url()).pathname).toBe('/login')
    await page.fill('#email', person.email)
    await page.fill('#password', person.password)
    await page.click('button[type=submit].primary')
    await page.waitForSelector('form.decision')
    await page.click('button[name=decision][value=approve]')
    await page.waitForURL(`${tool.redirectUri}**`)
    const callback = new URL(page.url())
    const code = callback.searchParams.get('code') ?? ''
    expect(code).not.toBe('')

    // The tool exchanges the code and uses its token.
    const exchanged = await postToken(server, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: tool.redirectUri,
      client_id: tool.clientId,
      code_verifier: pkce.verifier,
    })
    expect(exchanged.status).toBe(200)
    const tokens = await readJson(exchanged)
    expect((await callApi(server, ACCOUNT, { token: tokens.access_token })).status).toBe(200)

    // The person opens the connected-apps page and sees the tool.
    const response = await page.goto(`${server.issuer}/account`)
    expect(response?.status()).toBe(200)
    await expect(page.locator('h1').textContent()).resolves.toBe('Connected apps')
    const row = page.locator('tr', {
      has: page.locator('.client-name', { hasText: 'Lecture Notes Helper' }),
    })
    await expect(row.count()).resolves.toBe(1)
    const rowText = ((await row.textContent()) ?? '').replace(/\s+/g, ' ')
    expect(rowText).toContain('self-registered tool')
    for (const scope of ['openid', 'account:read', 'courses:read']) {
      expect(await row.locator('code', { hasText: scope }).count()).toBe(1)
    }
    expect(rowText).toMatch(/\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/)
    const file = await saveScreenshot(page, 'connected-apps')
    expect(existsSync(file)).toBe(true)

    // Revoke it with the button, as a person would.
    await page.getByRole('button', { name: 'Revoke access of Lecture Notes Helper' }).click()
    await page.waitForURL(`${server.issuer}/account?revoked=1`)
    await expect(page.getByRole('status').textContent()).resolves.toMatch(/Access revoked/)
    expect(await page.locator('.client-name', { hasText: 'Lecture Notes Helper' }).count()).toBe(0)
    await expect(page.getByText('No connected apps.').isVisible()).resolves.toBe(true)
    await saveScreenshot(page, 'connected-apps-revoked')

    // Its tokens fail at once.
    const after = await callApi(server, ACCOUNT, { token: tokens.access_token })
    expect(after.status).toBe(401)
    expect(after.headers.get('www-authenticate')).toMatch(/error="invalid_token"/)
    const refreshed = await postToken(server, refreshFields(tool, tokens.refresh_token))
    expect((await readJson(refreshed)).error).toBe('invalid_grant')
    expect((await introspect(server, tool, tokens.access_token)).active).toBe(false)

    expect(errors).toEqual([])
    await page.context().close()
  })
})
