import { mkdirSync } from 'node:fs'
import path from 'node:path'
import { type Browser, chromium, type Page } from 'playwright-core'

/** Debian's chromium; `.ci/run` installs it with apt-get when it is missing. */
const CHROMIUM = '/usr/bin/chromium'

const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
]

/** How long launching may take before the test fails instead of hanging. */
const LAUNCH_TIMEOUT_MS = 30_000
/** Per action and per navigation; pages are local and small. */
const PAGE_TIMEOUT_MS = 10_000

export const SCREENSHOT_DIR = path.resolve('test-results/screenshots')

/**
 * Launches headless Chromium. Close it in `afterAll`; pages made with `newPage` below
 * carry bounded timeouts.
 */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    timeout: LAUNCH_TIMEOUT_MS,
  })
}

/** A page in a fresh context (no shared cookies) with bounded action and navigation timeouts. */
export async function newPage(browser: Browser): Promise<Page> {
  const context = await browser.newContext()
  context.setDefaultTimeout(PAGE_TIMEOUT_MS)
  context.setDefaultNavigationTimeout(PAGE_TIMEOUT_MS)
  return context.newPage()
}

const SCREENSHOT_TIMEOUT_MS = 25_000

/** Saves a full-page PNG as test-results/screenshots/<name>.png and returns its path. */
export async function saveScreenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true })
  const file = path.join(SCREENSHOT_DIR, `${name.replace(/[^a-z0-9-]+/gi, '-')}.png`)
  // A full-page capture of a long page is rendered in software (--disable-gpu): on a loaded
  // two-core machine that took over the page timeout once, though the page itself was fine.
  await page.screenshot({ path: file, fullPage: true, timeout: SCREENSHOT_TIMEOUT_MS })
  return file
}

/** Collects console errors and uncaught page errors, for asserting that there were none. */
export function collectPageErrors(page: Page): string[] {
  const errors: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text())
  })
  page.on('pageerror', (error) => errors.push(error.message))
  return errors
}
