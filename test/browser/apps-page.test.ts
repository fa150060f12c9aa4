import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, expectHeld, newCourse } from '../http/approvals/held-calls.js'
import { launchBrowser, saveScreenshot } from '../support/browser.js'
import { registerTestClient } from '../support/flow.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { issue } from '../support/token-lifecycle.js'

// Issue 35: the Apps and agents page in Chromium, on a phone-sized screen. The owner signs in
// on the way, reads a request whose app name and course title look like scripts (shown as
// text, nothing runs), approves it with the button, and the app's repeated request runs once.

const SCRIPT_NAME = '<img src=x onerror="window.pwned=1">Agent<script>window.pwned=2</script>'
const SCRIPT_TITLE = '<script>window.pwned=3</script>Studio Lighting'

let server: TestServer
let browser: Browser
beforeAll(async () => {
  server = await startTestServer({ env: { PORTICO_CONFIRMATIONS: 'on' } })
  browser = await launchBrowser()
})
afterAll(async () => {
  await browser?.close()
  await server?.close()
})

describe('the Apps and agents page', () => {
  it('shows a script-looking request as text, approves it, and fits a 390px screen', async () => {
    const app = await registerTestClient(server, { client_name: SCRIPT_NAME })
    const agent = await issue(server, {
      role: 'owner',
      client: app,
      scope: 'courses:read courses:write',
    })
    const course = await newCourse(server, agent.accessToken, SCRIPT_TITLE)
    const path = `/api/v1/courses/${course.id}`
    const problem = await expectHeld(server, await call(server, agent.accessToken, path, 'DELETE'))

    const context = await browser.newContext({
      viewport: { width: 390, height: 844 },
      isMobile: true,
    })
    context.setDefaultTimeout(20_000)
    const page = await context.newPage()
    // Console errors and uncaught page errors; Chromium's own favicon request (404) aside.
    const errors: string[] = []
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.location().url.endsWith('/favicon.ico'))
        errors.push(message.text())
    })
    page.on('pageerror', (error) => errors.push(error.message))

    await page.goto(`${server.issuer}/account/apps`)
    expect(new URL(page.url()).pathname).toBe('/login')
    await page.fill('#email', agent.person.email)
    await page.fill('#password', agent.person.password)
    await page.click('button[type=submit].primary')
    await page.waitForURL(`${server.issuer}/account/apps`)

    const request = page.locator('#waiting .waiting-request').first()
    expect(await request.locator('.client-name').textContent()).toBe(SCRIPT_NAME)
    expect(await request.locator('.approval-description').textContent()).toContain(
      `“${SCRIPT_TITLE}”`,
    )
    const connected = page.locator('#connected .connected-app .client-name')
    expect(await connected.allTextContents()).toContain(SCRIPT_NAME)
    expect(await page.locator('#activity').textContent()).toContain(SCRIPT_TITLE)
    expect(await page.locator('.apps-page img, .apps-page script').count()).toBe(0)
    expect(await page.evaluate('window.pwned')).toBeUndefined()
    expect(
      await page.evaluate<boolean>('document.documentElement.scrollWidth <= window.innerWidth'),
    ).toBe(true)
    await saveScreenshot(page, 'apps-page-phone')

    await request.getByRole('button', { name: 'Approve' }).click()
    await page.waitForURL(/done=approved/)
    await expect(page.locator('.notice').textContent()).resolves.toContain('Approved')
    expect(
      await page.locator(`form[action="/account/apps/approvals/${problem.approval_id}"]`).count(),
    ).toBe(0)
    expect((await call(server, agent.accessToken, path, 'DELETE')).status).toBe(204)
    expect((await call(server, agent.accessToken, path, 'DELETE')).status).toBe(404)

    await page.reload()
    await expect(page.locator('#activity .approved-by').first().textContent()).resolves.toContain(
      'approved by you',
    )
    expect(
      await page.evaluate<boolean>('document.documentElement.scrollWidth <= window.innerWidth'),
    ).toBe(true)
    expect(await page.evaluate('window.pwned')).toBeUndefined()
    expect(errors).toEqual([])
    await context.close()
  })
})
