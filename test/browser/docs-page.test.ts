import { readFileSync } from 'node:fs'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  collectPageErrors,
  launchBrowser,
  newPage,
  SCREENSHOT_MAX_HEIGHT,
  saveScreenshot,
} from '../support/browser.js'
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
    // A PNG's size is in its header (IHDR): the page's width, and its height cut at the
    // bound (the page is far taller; all of it took longer than the test's time).
    const png = readFileSync(file)
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1280, SCREENSHOT_MAX_HEIGHT])
    expect(errors).toEqual([])
    await page.context().close()
  })
})
