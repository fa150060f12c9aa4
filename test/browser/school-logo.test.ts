import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEMO_LOGO } from '../../src/api/demo/files.js'
import { launchBrowser, newPage, saveScreenshot } from '../support/browser.js'
import { useDemoServer } from '../support/demo.js'
import { readJson } from '../support/http.js'
import { callApi, issue } from '../support/token-lifecycle.js'

const server = useDemoServer()
const NAME = 'Brightframe Photography School'
/** The demo's own logo file (the appearance names others in later tests). */
const demoLogoUrl = () => `${server().issuer}/files/${DEMO_LOGO.id}/${DEMO_LOGO.filename}`

let browser: Browser
beforeAll(async () => {
  browser = await launchBrowser()
})
afterAll(async () => {
  await browser?.close()
})

/**
 * Console errors and uncaught errors of the page, but for the browser's own request for
 * /favicon.ico (404: Portico's pages name no favicon), which it makes at a time of its own.
 */
function pageErrors(page: Page): string[] {
  const errors: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.location().url.endsWith('/favicon.ico'))
      errors.push(`${message.location().url}: ${message.text()}`)
  })
  page.on('pageerror', (error) => errors.push(error.message))
  return errors
}

async function setLogo(logoUrl: string): Promise<void> {
  const owner = await issue(server(), { scope: 'appearance:write' })
  const response = await callApi(server(), '/api/v1/appearance', {
    token: owner.accessToken,
    init: {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ logo_url: logoUrl }),
    },
  })
  expect(response.status, await response.text()).toBe(200)
}

/**
 * What the header shows, read in the page (tests compile without the DOM's types): its text,
 * every visible image with whether it has loaded (a broken image is one that is `complete`
 * with no natural width), and the logo element's tag and CSS background.
 */
async function seen(page: Page) {
  return (await page.evaluate(`(() => {
    const visible = (el) => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0 }
    const logo = document.querySelector('header.top .logo')
    return {
      text: document.querySelector('header.top').textContent.trim(),
      nameVisible: visible(document.querySelector('header.top .brand')),
      images: [...document.images].filter(visible).map((img) => ({
        src: img.getAttribute('src'),
        loaded: img.complete && img.naturalWidth > 0,
      })),
      logo: logo && { tag: logo.tagName.toLowerCase(), background: getComputedStyle(logo).backgroundImage },
    }
  })()`)) as {
    text: string
    nameVisible: boolean
    images: Array<{ src: string; loaded: boolean }>
    logo: { tag: string; background: string } | null
  }
}

describe('the school’s logo on Portico’s pages: shown when it loads, never a broken image', () => {
  it('the demo school’s sign-in page shows its logo, loaded from Portico’s own storage', async () => {
    const logoUrl: string = (await readJson(await server().fetch('/api/v1/appearance'))).logo_url
    const page = await newPage(browser)
    const errors = pageErrors(page)
    await page.goto(`${server().issuer}/login`)
    const header = await seen(page)
    expect(header.text).toBe(NAME)
    expect(header.nameVisible).toBe(true)
    expect(header.images).toEqual([{ src: new URL(logoUrl).pathname, loaded: true }])
    expect(header.logo?.tag).toBe('img')
    expect(errors).toEqual([])
    await saveScreenshot(page, 'school-logo-demo')
  })

  it('an unreachable logo elsewhere shows no broken image, and the name', async () => {
    const unreachable = 'https://logo.unreachable.example/brightframe.png'
    await setLogo(unreachable)
    const page = await newPage(browser)
    // The browser tries it, and it fails as an unreachable host does.
    const failed: string[] = []
    page.on('requestfailed', (request) => failed.push(request.url()))
    await page.route(`${unreachable}*`, (route) => route.abort('addressunreachable'))
    await page.goto(`${server().issuer}/login`)
    await expect.poll(() => failed).toContain(unreachable)
    const header = await seen(page)
    expect(header.text).toBe(NAME)
    expect(header.nameVisible).toBe(true)
    expect(header.images).toEqual([])
    // The logo is the background of an empty element: nothing is drawn when it fails.
    expect(header.logo).toEqual({ tag: 'span', background: `url("${unreachable}")` })
    await saveScreenshot(page, 'school-logo-unreachable')
  })

  it('a logo elsewhere that loads is shown (as the logo element’s background)', async () => {
    const reachable = 'https://cdn.brightframe.example/logo.png'
    await setLogo(reachable)
    const bytes = Buffer.from(await (await fetch(demoLogoUrl())).arrayBuffer())
    const page = await newPage(browser)
    const errors = pageErrors(page)
    await page.route(`${reachable}*`, (route) =>
      route.fulfill({ status: 200, contentType: 'image/png', body: bytes }),
    )
    const loaded = page.waitForResponse(reachable)
    await page.goto(`${server().issuer}/login`)
    expect((await loaded).status()).toBe(200)
    const header = await seen(page)
    expect(header.images).toEqual([])
    expect(header.logo).toEqual({ tag: 'span', background: `url("${reachable}")` })
    // The same URL decodes to an image in the page (allowed by the page's CSP as the logo).
    const width = await page.evaluate(
      `(async () => { const img = new Image(); img.src = ${JSON.stringify(reachable)}; await img.decode(); return img.naturalWidth })()`,
    )
    expect(width).toBe(64)
    expect(errors).toEqual([])
  })

  it('a logo naming a file of Portico’s storage that does not exist shows no image, and the name', async () => {
    await setLogo(`${server().issuer}/files/fil_no_such_logo/logo.png`)
    const page = await newPage(browser)
    const errors = pageErrors(page)
    await page.goto(`${server().issuer}/login`)
    const header = await seen(page)
    expect(header.text).toBe(NAME)
    expect(header.nameVisible).toBe(true)
    expect(header.images).toEqual([])
    expect(header.logo).toBeNull()
    expect(errors).toEqual([])
  })
})
