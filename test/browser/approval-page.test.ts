import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, expectHeld, newCourse } from '../http/approvals/held-calls.js'
import { launchBrowser, newPage, saveScreenshot } from '../support/browser.js'
import { registerTestClient } from '../support/flow.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { issue } from '../support/token-lifecycle.js'

// Issue 35: the approval page in Chromium. The person follows the approval_url, signs in,
// reads what the app asks (an app name and a course title that look like scripts, shown as
// text), approves, and the app's repeated request runs once.

const SCRIPT_NAME = '<img src=x onerror="window.pwned=1">Claude Code<script>window.pwned=2</script>'
const SCRIPT_TITLE = '<script>window.pwned=3</script>Portrait'

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

describe('the approval page', () => {
  it('signs the person in, shows the request as text, and approves it', async () => {
    const app = await registerTestClient(server, { client_name: SCRIPT_NAME })
    const agent = await issue(server, {
      role: 'editor',
      client: app,
      scope: 'courses:read courses:write',
    })
    const course = await newCourse(server, agent.accessToken, SCRIPT_TITLE)
    const path = `/api/v1/courses/${course.id}`
    const problem = await expectHeld(server, await call(server, agent.accessToken, path, 'DELETE'))

    const page = await newPage(browser)
    // Console errors and uncaught page errors; Chromium's own favicon request (404) aside.
    const errors: string[] = []
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.location().url.endsWith('/favicon.ico'))
        errors.push(message.text())
    })
    page.on('pageerror', (error) => errors.push(error.message))
    await page.goto(String(problem.approval_url))
    expect(new URL(page.url()).pathname).toBe('/login')
    await page.fill('#email', agent.person.email)
    await page.fill('#password', agent.person.password)
    await page.click('button[type=submit].primary')
    await page.waitForURL(String(problem.approval_url))

    const description = await page.locator('.approval-description').textContent()
    expect(description).toContain(`“${SCRIPT_TITLE}”`)
    expect(await page.locator('h1 .client-name').textContent()).toBe(SCRIPT_NAME)
    expect(await page.locator('.approval-person').textContent()).toContain(agent.person.email)
    expect(await page.locator('.approval img, .approval script').count()).toBe(0)
    expect(await page.evaluate('window.pwned')).toBeUndefined()
    await saveScreenshot(page, 'approval-page')

    await page.getByRole('button', { name: 'Approve' }).click()
    await expect(page.locator('.approval-state').textContent()).resolves.toContain('Approved')
    expect(await page.getByRole('button', { name: 'Approve' }).count()).toBe(0)

    expect((await call(server, agent.accessToken, path, 'DELETE')).status).toBe(204)
    await page.reload()
    await expect(page.locator('.approval-state').textContent()).resolves.toContain('ran once')
    expect(await page.evaluate('window.pwned')).toBeUndefined()
    expect(errors).toEqual([])
    await page.context().close()
  })
})
