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
/**
 * The most of a page's height a screenshot shows. Captures are rendered in software
 * (--disable-gpu): the docs page is 118,000 px tall, and all of it took 14 s on an idle
 * two-core machine (a 12 MB PNG) and over 25 s under CI's load; its first 6,000 px take 2 s.
 */
export const SCREENSHOT_MAX_HEIGHT = 6_000

/**
 * Saves a PNG of the whole page, down to SCREENSHOT_MAX_HEIGHT, as
 * test-results/screenshots/<name>.png and returns its path.
 */
export async function saveScreenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true })
  const file = path.join(SCREENSHOT_DIR, `${name.replace(/[^a-z0-9-]+/gi, '-')}.png`)
  const { width, height } = await page.evaluate<{ width: number; height: number }>(
    '({ width: document.documentElement.scrollWidth, height: document.documentElement.scrollHeight })',
  )
  await page.screenshot({
    path: file,
    fullPage: true,
    clip: { x: 0, y: 0, width, height: Math.min(height, SCREENSHOT_MAX_HEIGHT) },
    timeout: SCREENSHOT_TIMEOUT_MS,
  })
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
