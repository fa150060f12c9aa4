import { existsSync } from 'node:fs'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { collectPageErrors, launchBrowser, newPage, saveScreenshot } from '../support/browser.js'
import { startTestServer, type TestServer } from '../support/server.js'

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

describe('the developer documentation page in Chromium', () => {
  it('loads with its title and no console errors, and is screenshotted', async () => {
    const page = await newPage(browser)
    const errors = collectPageErrors(page)
    const response = await page.goto(`${server.issuer}/docs`)
    expect(response?.status()).toBe(200)
    expect(await page.title()).toBe('Portico developer documentation')
    await expect(page.locator('h1').first().isVisible()).resolves.toBe(true)
    const file = await saveScreenshot(page, 'docs-page')
    expect(existsSync(file)).toBe(true)
    expect(errors).toEqual([])
    await page.context().close()
  })
})
