import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { collectPageErrors, launchBrowser, newPage, saveScreenshot } from '../support/browser.js'
import { authorizePath, createPerson, createPkce, registerTestClient } from '../support/flow.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { callApi, issue } from '../support/token-lifecycle.js'

/** A 1×1 PNG, answered for the logo's https URL (the test has no network). */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
)
const LOGO = 'https://cdn.northfield.example/logo.png'

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

async function patch(token: string, path: string, json: unknown): Promise<void> {
  const response = await callApi(server, path, {
    token,
    init: {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(json),
    },
  })
  expect(response.status, await response.text()).toBe(200)
}

async function header(page: Page) {
  return {
    text: ((await page.locator('header.top').textContent()) ?? '').trim(),
    footer: ((await page.locator('footer').textContent()) ?? '').trim(),
    // Expressions evaluated in the page, where the DOM is (tests compile without its types).
    background: (await page.evaluate(
      "getComputedStyle(document.querySelector('header.top')).backgroundColor",
    )) as string,
    // A logo elsewhere is the background of the header's logo element: loaded when that
    // background is the logo and its URL decodes to an image in the page.
    logoLoaded: (await page.evaluate(
      `(async () => {
        const logo = document.querySelector('header.top span.logo')
        if (!logo || getComputedStyle(logo).backgroundImage !== 'url("${LOGO}")') return false
        const image = new Image()
        image.src = '${LOGO}'
        await image.decode()
        return image.naturalWidth > 0 && document.querySelectorAll('header.top img').length === 0
      })()`,
    )) as boolean,
  }
}

describe('the pages a person signs in on are the school’s', () => {
  it('sign-in and consent show the school’s name, logo and colour after PATCH /api/v1/school and /api/v1/appearance', async () => {
    const owner = await issue(server, {
      scope: 'school:read school:write appearance:read appearance:write',
    })
    const page = await newPage(browser)
    const errors = collectPageErrors(page)
    await page.route(LOGO, (route) =>
      route.fulfill({ status: 200, contentType: 'image/png', body: PNG }),
    )
    const tool = await registerTestClient(server, { client_name: 'Grade Sync' })
    await page.route(`${tool.redirectUri}**`, (route) =>
      route.fulfill({ status: 200, contentType: 'text/plain', body: 'callback reached' }),
    )

    // Renamed: the very next sign-in page carries the new name, and Portico only below.
    await patch(owner.accessToken, '/api/v1/school', { name: 'Northfield Academy' })
    const person = await createPerson(server, 'student')
    await page.goto(`${server.issuer}${authorizePath(tool, createPkce(), { scope: 'openid' })}`)
    expect(new URL(page.url()).pathname).toBe('/login')
    let seen = await header(page)
    expect(seen.text).toBe('Northfield Academy')
    expect(seen.text).not.toContain('Portico')
    expect(seen.footer).toContain('Portico')
    expect(await page.title()).toContain('Northfield Academy')

    // Given a logo and a colour: the header shows both, allowed by the page's CSP.
    await patch(owner.accessToken, '/api/v1/appearance', {
      logo_url: LOGO,
      colors: { primary: '#7A1F3D' },
    })
    await patch(owner.accessToken, '/api/v1/school', { name: 'Northfield Academy of Art' })
    await page.reload()
    seen = await header(page)
    expect(seen.text).toBe('Northfield Academy of Art')
    expect(seen.background).toBe('rgb(122, 31, 61)')
    expect(seen.logoLoaded).toBe(true)
    await saveScreenshot(page, 'school-branding-sign-in')

    await page.fill('#email', person.email)
    await page.fill('#password', person.password)
    await page.click('button[type=submit].primary')
    await page.waitForSelector('form.decision')
    seen = await header(page)
    expect(seen.text).toBe('Northfield Academy of Art')
    expect(seen.text).not.toContain('Portico')
    expect(seen.footer).toContain('Portico')
    expect(seen.background).toBe('rgb(122, 31, 61)')
    expect(seen.logoLoaded).toBe(true)
    await saveScreenshot(page, 'school-branding-consent')

    // The connected-apps page and an error page carry it too.
    await page.goto(`${server.issuer}/account`)
    expect((await header(page)).text).toBe('Northfield Academy of Art')
    // No CSP violation so far: the inline colour rule and the logo are allowed.
    expect(errors).toEqual([])
    const failed = await page.goto(`${server.issuer}/oauth/authorize?client_id=pci_nobody`)
    expect(failed?.status()).toBe(400)
    seen = await header(page)
    expect(seen.text).toBe('Northfield Academy of Art')
    expect(seen.footer).toContain('Portico')
    // The only console error: the 400 of the error page itself, no CSP violation.
    expect(errors).toEqual([expect.stringMatching(/status of 400/)])
  })
})
