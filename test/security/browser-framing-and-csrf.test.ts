import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { BrowserContext, Browser as Chromium, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchBrowser } from '../support/browser.js'
import {
  authorizePath,
  Browser,
  createPerson,
  createPkce,
  formField,
  registerTestClient,
  type TestClient,
  type TestPerson,
} from '../support/flow.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { rowCounts } from './support.js'

/**
 * Attacks from another origin, in Chromium, with an attacker's pages served from another
 * port of the same loopback address: same site as Portico (so SameSite=Lax cookies travel
 * with cross-origin form posts), another origin. Clickjacking (RFC 6749 §10.13, RFC 7034,
 * CSP frame-ancestors): no Portico page renders in a frame. CSRF (RFC 6749 §10.12): form
 * posts to the consent decision and to sign-in, without a CSRF token or with one from
 * another session, are refused. Session fixation: a session cookie planted by the other
 * origin is never the session after sign-in.
 */

let server: TestServer
let chromium: Chromium
let attacker: Server
let attackerOrigin: string
let tool: TestClient
let victim: TestPerson
let intruder: TestPerson
/** The attacker's pages by path, set by each test. */
const pages = new Map<string, string>()

beforeAll(async () => {
  server = await startTestServer()
  chromium = await launchBrowser()
  tool = await registerTestClient(server, { client_name: 'Framed tool' })
  victim = await createPerson(server, 'student')
  intruder = await createPerson(server, 'student')
  attacker = createServer((request, response) => {
    const page = pages.get((request.url ?? '/').split('?')[0] ?? '/')
    response.writeHead(page === undefined ? 404 : 200, {
      'content-type': 'text/html; charset=utf-8',
    })
    response.end(page ?? 'not found')
  })
  await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve))
  attackerOrigin = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}`
})
afterAll(async () => {
  await chromium?.close()
  await new Promise<void>((resolve) => (attacker ? attacker.close(() => resolve()) : resolve()))
  await server?.close()
})

/** A browser context signed in as `who` through the real sign-in page. */
async function signedIn(who: TestPerson): Promise<{ context: BrowserContext; page: Page }> {
  const context = await chromium.newContext()
  context.setDefaultTimeout(10_000)
  const page = await context.newPage()
  await page.goto(`${server.issuer}/login`)
  await page.fill('#email', who.email)
  await page.fill('#password', who.password)
  await page.click('button[type=submit].primary')
  await page.waitForURL(`${server.issuer}/account`)
  await page.route(`${tool.redirectUri}**`, (route) =>
    route.fulfill({ status: 200, contentType: 'text/plain', body: 'callback reached' }),
  )
  return { context, page }
}

/** An auto-submitting cross-site form, as an attacker's page would send it. */
function autoSubmit(action: string, fields: Record<string, string>): string {
  const inputs = Object.entries(fields)
    .map(([k, v]) => `<input type="hidden" name="${k}" value="${v.replaceAll('"', '&quot;')}">`)
    .join('')
  return `<!doctype html><form method="post" action="${action}">${inputs}</form><script>document.forms[0].submit()</script>`
}

describe('RFC 6749 §10.13 clickjacking: no Portico page renders inside another origin’s frame', () => {
  it('sends X-Frame-Options DENY and frame-ancestors none on the consent page', async () => {
    const browser = new Browser(server)
    const login = await (await browser.request('/login')).text()
    await browser.post('/login', {
      csrf: formField(login, 'csrf') ?? '',
      email: victim.email,
      password: victim.password,
    })
    const consent = await browser.request(authorizePath(tool, createPkce(), { scope: 'openid' }))
    expect(consent.status).toBe(200)
    expect(consent.headers.get('x-frame-options')).toBe('DENY')
    expect(consent.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/)
  })

  it('Chromium blocks the consent, sign-in and connected-apps pages in a frame; a JSON document still frames (control)', async () => {
    const { context, page } = await signedIn(victim)
    const consentUrl = `${server.issuer}${authorizePath(tool, createPkce(), { scope: 'openid' })}`
    const framed = {
      consent: consentUrl,
      login: `${server.issuer}/login`,
      account: `${server.issuer}/account`,
      control: `${server.issuer}/.well-known/openid-configuration`,
    }
    pages.set(
      '/frame',
      `<!doctype html>${Object.entries(framed)
        .map(
          ([name, src]) => `<iframe name="${name}" src="${src.replaceAll('&', '&amp;')}"></iframe>`,
        )
        .join('')}`,
    )
    const console: string[] = []
    page.on('console', (message) => console.push(message.text()))
    await page.goto(`${attackerOrigin}/frame`, { waitUntil: 'load' })
    await page.waitForTimeout(300)
    const frame = (name: string) => page.frames().find((f) => f.name() === name)
    for (const name of ['consent', 'login', 'account']) {
      const f = frame(name)
      expect(f, name).toBeDefined()
      // A refused frame shows Chromium's error document, not Portico's page.
      expect(f?.url().startsWith(server.issuer), name).toBe(false)
      await expect(f?.locator('form').count(), name).resolves.toBe(0)
    }
    await expect(frame('control')?.locator('body').textContent()).resolves.toContain(server.issuer)
    expect(console.join('\n')).toMatch(/X-Frame-Options|frame-ancestors/)
    await context.close()
  })
})

describe('RFC 6749 §10.12 CSRF: cross-site form posts to the consent decision are refused', () => {
  it('without a CSRF token, or with another session’s, even knowing the request id: 403, no code', async () => {
    const { context, page } = await signedIn(victim)
    await page.goto(`${server.issuer}${authorizePath(tool, createPkce(), { scope: 'openid' })}`)
    const request = (await page.inputValue('input[name=request]')) ?? ''
    // The intruder's own consent page gives them a valid token of their own session.
    const other = await signedIn(intruder)
    await other.page.goto(
      `${server.issuer}${authorizePath(tool, createPkce(), { scope: 'openid' })}`,
    )
    const foreignCsrf = await other.page.inputValue('input[name=csrf]')

    for (const [path, fields] of [
      ['/forge-none', { request, decision: 'approve' }],
      ['/forge-foreign', { request, csrf: foreignCsrf, decision: 'approve' }],
    ] as const) {
      pages.set(path, autoSubmit(`${server.issuer}/oauth/authorize/decision`, fields))
      const before = await rowCounts(server)
      const forged = await context.newPage()
      const answer = forged.waitForResponse(`${server.issuer}/oauth/authorize/decision`)
      await forged.goto(`${attackerOrigin}${path}`)
      const response = await answer
      expect(response.status(), path).toBe(403)
      expect(response.headers().location, path).toBeUndefined()
      expect((await rowCounts(server)).authorization_codes, path).toBe(before.authorization_codes)
      await forged.close()
    }
    // The victim's own approval still works afterwards.
    await page.click('button[name=decision][value=approve]')
    await page.waitForURL(`${tool.redirectUri}**`)
    expect(new URL(page.url()).searchParams.get('code')).toMatch(/^pac_/)
    await other.context.close()
    await context.close()
  })
})

describe('login CSRF: a cross-site post to /login cannot sign the victim into the attacker’s account', () => {
  it('is refused with 403 when it carries the attacker’s own form token, and nobody is signed in', async () => {
    const attackerBrowser = new Browser(server)
    const login = await (await attackerBrowser.request('/login')).text()
    pages.set(
      '/login-csrf',
      autoSubmit(`${server.issuer}/login`, {
        csrf: formField(login, 'csrf') ?? '',
        email: intruder.email,
        password: intruder.password,
      }),
    )
    const context = await chromium.newContext()
    const page = await context.newPage()
    // The victim has visited Portico before: their browser carries its own browser cookie.
    await page.goto(`${server.issuer}/login`)
    const answer = page.waitForResponse(`${server.issuer}/login`)
    await page.goto(`${attackerOrigin}/login-csrf`)
    expect((await answer).status()).toBe(403)
    const cookies = await context.cookies(server.issuer)
    expect(cookies.find((c) => c.name === 'portico_session')).toBeUndefined()
    await context.close()
  })
})

describe('session fixation: a session cookie planted by another origin of the same host', () => {
  it('is replaced at sign-in, and the planted value never becomes a session', async () => {
    const planted = `pss_${'F'.repeat(43)}`
    pages.set(
      '/plant',
      `<!doctype html><script>document.cookie = "portico_session=${planted}; path=/"</script>planted`,
    )
    const context = await chromium.newContext()
    const page = await context.newPage()
    await page.goto(`${attackerOrigin}/plant`)
    // Cookies do not keep ports apart: Portico's origin now carries the planted cookie.
    expect(
      (await context.cookies(server.issuer)).find((c) => c.name === 'portico_session')?.value,
    ).toBe(planted)
    await page.goto(`${server.issuer}/login`)
    await page.fill('#email', victim.email)
    await page.fill('#password', victim.password)
    await page.click('button[type=submit].primary')
    await page.waitForURL(`${server.issuer}/account`)
    const session = (await context.cookies(server.issuer)).find((c) => c.name === 'portico_session')
    expect(session?.value).toMatch(/^pss_/)
    expect(session?.value).not.toBe(planted)
    const fixed = new Browser(server)
    fixed.cookies.set('portico_session', planted)
    const account = await fixed.request('/account')
    expect(account.status).toBe(303)
    expect(account.headers.get('location')).toBe('/login')
    await context.close()
  })
})
