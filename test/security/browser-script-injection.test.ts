import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Browser as Chromium, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchBrowser, newPage } from '../support/browser.js'
import {
  authorizePath,
  createPerson,
  createPkce,
  registerTestClient,
  type TestClient,
  type TestPerson,
} from '../support/flow.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { callApi, issue } from '../support/token-lifecycle.js'

/**
 * Cross-site scripting (OWASP ASVS V5.3, RFC 6749 §10.14): script planted in a client name,
 * a person's name, a scope, `state`, `login_hint`, a typed e-mail or a URL path never runs
 * on any of Portico's pages, checked in Chromium: no dialog, no uncaught error, no request
 * for an injected image. The pages' Content-Security-Policy forbids inline script, and
 * Chromium is shown to enforce it on a page with script injected into it.
 */

const PAYLOADS = [
  '<img src=x onerror=alert(1)>',
  '"><script>alert(2)</script>',
  "'><svg onload=alert(3)>",
  '</title><script>alert(4)</script>',
  '<a href="javascript:alert(5)">x</a>',
  'javascript:alert(6)',
  '<iframe srcdoc="<script>alert(7)</script>"></iframe>',
  '{{constructor.constructor("alert(8)")()}}',
] as const

let server: TestServer
let chromium: Chromium
let person: TestPerson
/** The tools' loopback callback: a real listener, as a native app would run. */
let callback: Server
let callbackUri: string

beforeAll(async () => {
  server = await startTestServer()
  chromium = await launchBrowser()
  person = await createPerson(server, 'student')
  callback = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/plain' })
    response.end('callback reached')
  })
  await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve))
  callbackUri = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`
})
afterAll(async () => {
  await chromium?.close()
  await new Promise<void>((resolve) => (callback ? callback.close(() => resolve()) : resolve()))
  await server?.close()
})

/** A self-registered tool whose callback is the listener above. */
function registerTool(metadata: Record<string, unknown> = {}): Promise<TestClient> {
  return registerTestClient(server, { redirect_uris: [callbackUri], ...metadata })
}

interface Watched {
  readonly page: Page
  readonly dialogs: string[]
  readonly errors: string[]
  readonly injectedRequests: string[]
  readonly console: string[]
}

/** A fresh page that records dialogs, errors and requests an injected tag would make. */
async function watchedPage(): Promise<Watched> {
  const page = await newPage(chromium)
  const watched: Watched = { page, dialogs: [], errors: [], injectedRequests: [], console: [] }
  page.on('dialog', (dialog) => {
    watched.dialogs.push(dialog.message())
    void dialog.dismiss()
  })
  page.on('pageerror', (error) => watched.errors.push(error.message))
  page.on('console', (message) => watched.console.push(message.text()))
  page.on('request', (request) => {
    const url = new URL(request.url())
    if (url.pathname === '/x' || url.hostname.includes('evil'))
      watched.injectedRequests.push(url.href)
  })
  return watched
}

function expectNothingRan(watched: Watched): void {
  expect(watched.dialogs).toEqual([])
  expect(watched.errors).toEqual([])
  expect(watched.injectedRequests).toEqual([])
}

async function signIn(page: Page, who: TestPerson): Promise<void> {
  await page.goto(`${server.issuer}/login`)
  await page.fill('#email', who.email)
  await page.fill('#password', who.password)
  await page.click('button[type=submit].primary')
  await page.waitForURL(`${server.issuer}/account`)
}

describe('script in a client name, state and login_hint never runs (Chromium)', () => {
  it('on the sign-in page, the consent page, the callback and the connected-apps page', async () => {
    const clients: TestClient[] = []
    for (const name of PAYLOADS) clients.push(await registerTool({ client_name: name }))
    const watched = await watchedPage()
    const { page } = watched

    // Not signed in: the sign-in page names the client, and login_hint fills the e-mail.
    const first = clients[0] as TestClient
    await page.goto(
      `${server.issuer}${authorizePath(first, createPkce(), { login_hint: PAYLOADS[1], state: PAYLOADS[0] })}`,
    )
    expect(new URL(page.url()).pathname).toBe('/login')
    await expect(page.locator('strong').first().textContent()).resolves.toBe(PAYLOADS[0])
    await expect(page.inputValue('#email')).resolves.toBe(PAYLOADS[1])
    await page.fill('#password', person.password)
    await page.fill('#email', person.email)
    await page.click('button[type=submit].primary')
    await page.waitForSelector('form.decision')

    // Signed in: each client's consent page shows its name as text; approving returns state.
    for (const [i, client] of clients.entries()) {
      const payload = PAYLOADS[i] as string
      if (i > 0) {
        await page.goto(
          `${server.issuer}${authorizePath(client, createPkce(), { state: payload, scope: 'openid' })}`,
        )
      }
      await expect(page.locator('h1 .client-name').textContent()).resolves.toBe(payload)
      await page.click('button[name=decision][value=approve]')
      await page.waitForURL(`${client.redirectUri}**`)
      expect(new URL(page.url()).searchParams.get('state')).toBe(i === 0 ? PAYLOADS[0] : payload)
    }

    // The connected-apps page lists every hostile name, as text.
    await page.goto(`${server.issuer}/account`)
    const names = await page.locator('.client-name').allTextContents()
    for (const payload of PAYLOADS) expect(names).toContain(payload)
    expectNothingRan(watched)
  })

  it('a person’s own name set through the API is text on the consent and connected-apps pages', async () => {
    const who = await createPerson(server, 'student')
    const { accessToken } = await issue(server, { person: who, scope: 'openid account:write' })
    const name = '<img src=x onerror=alert(9)>"><script>alert(10)</script>'
    const patched = await callApi(server, '/api/v1/account', {
      token: accessToken,
      init: {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name }),
      },
    })
    expect(patched.status).toBe(200)
    const tool = await registerTool()
    const watched = await watchedPage()
    await signIn(watched.page, who)
    await expect(watched.page.locator('main p').first().textContent()).resolves.toContain(name)
    await watched.page.goto(
      `${server.issuer}${authorizePath(tool, createPkce(), { scope: 'openid' })}`,
    )
    await expect(watched.page.locator('form.decision').count()).resolves.toBe(1)
    await expect(watched.page.locator('main').textContent()).resolves.toContain(name)
    expectNothingRan(watched)
  })

  it('a typed e-mail carrying script is echoed as text after a failed sign-in', async () => {
    const watched = await watchedPage()
    await watched.page.goto(`${server.issuer}/login`)
    const typed = '"><img src=x onerror=alert(11)>@example.com'
    await watched.page.fill('#email', typed)
    await watched.page.fill('#password', 'wrong password')
    // The field is type=email: submit the form without the browser's own validation.
    await watched.page.evaluate("document.querySelector('form').setAttribute('novalidate', '')")
    await watched.page.click('button[type=submit].primary')
    await watched.page.waitForSelector('#login-error')
    await expect(watched.page.inputValue('#email')).resolves.toBe(typed)
    expectNothingRan(watched)
  })
})

describe('script in a scope, in error descriptions and in URLs never runs on Portico’s pages', () => {
  it('an unknown scope carrying markup goes back to the client as an error, never onto a page', async () => {
    const tool = await registerTool()
    const watched = await watchedPage()
    await signIn(watched.page, person)
    await watched.page.goto(
      `${server.issuer}${authorizePath(tool, createPkce(), { scope: 'openid <img/src=x/onerror=alert(12)>' })}`,
    )
    await watched.page.waitForURL(`${tool.redirectUri}**`)
    const callback = new URL(watched.page.url())
    expect(callback.searchParams.get('error')).toBe('invalid_scope')
    // RFC 6749 §4.1.2.1: printable ASCII without " or \ (< and > are allowed there).
    expect(callback.searchParams.get('error_description')).toMatch(
      /^[\x20\x21\x23-\x5B\x5D-\x7E]+$/,
    )
    expectNothingRan(watched)
  })

  it('error pages and 404 answers for URLs carrying markup show no script', async () => {
    const watched = await watchedPage()
    const { page } = watched
    for (const path of [
      `/oauth/authorize?client_id=${encodeURIComponent('<script>alert(13)</script>')}`,
      `/oauth/authorize?client_id=x&redirect_uri=${encodeURIComponent('javascript:alert(14)')}`,
      '/oauth/authorize/%3Cimg%20src=x%20onerror=alert(15)%3E',
      '/login/%3Cscript%3Ealert(16)%3C/script%3E',
      `/oauth/authorize/continue?request=${encodeURIComponent('"><script>alert(17)</script>')}`,
      `/login?request=${encodeURIComponent('"><script>alert(18)</script>')}`,
    ]) {
      const response = await page.goto(`${server.issuer}${path}`)
      expect(response?.status(), path).toBeLessThan(500)
      const type = response?.headers()['content-type'] ?? ''
      // HTML only from the page routes; everything else is JSON under nosniff.
      if (!type.startsWith('text/html'))
        expect(response?.headers()['x-content-type-options']).toBe('nosniff')
    }
    expectNothingRan(watched)
  })
})

describe('Content-Security-Policy (CSP Level 3): inline script is forbidden on every page', () => {
  it('sends default-src none with no script source, no unsafe-inline or unsafe-eval', async () => {
    const tool = await registerTestClient(server)
    for (const path of [
      '/login',
      '/',
      `/oauth/authorize?client_id=${tool.clientId}&redirect_uri=x`,
    ]) {
      const response = await server.fetch(path, { redirect: 'manual' })
      const csp = response.headers.get('content-security-policy') ?? ''
      const directives = new Map(
        csp
          .split(';')
          .map((d) => d.trim().split(/\s+/))
          .map(([name = '', ...values]) => [name, values]),
      )
      expect(directives.get('default-src'), path).toEqual(["'none'"])
      expect(directives.has('script-src'), path).toBe(false)
      expect(directives.has('script-src-elem'), path).toBe(false)
      expect(directives.has('script-src-attr'), path).toBe(false)
      expect(csp, path).not.toMatch(/unsafe-inline|unsafe-eval|unsafe-hashes|\*/)
      expect(directives.get('base-uri'), path).toEqual(["'none'"])
    }
  })

  it('Chromium refuses script injected into a served page, yet runs it once the CSP is removed', async () => {
    const injected =
      '<script>window.__pwned = 1; alert("inline")</script><img src="data:," onerror="alert(\'handler\')">'
    const load = async (keepCsp: boolean) => {
      const watched = await watchedPage()
      await watched.page.route(`${server.issuer}/login`, async (route) => {
        const response = await route.fetch()
        const headers = { ...response.headers() }
        if (!keepCsp) delete headers['content-security-policy']
        const body = (await response.text()).replace('</main>', `${injected}</main>`)
        await route.fulfill({ status: response.status(), headers, body })
      })
      await watched.page.goto(`${server.issuer}/login`)
      await watched.page.waitForTimeout(200)
      const pwned = (await watched.page.evaluate('window.__pwned')) as number | undefined
      return { watched, pwned }
    }
    const enforced = await load(true)
    expect(enforced.pwned).toBeUndefined()
    expect(enforced.watched.dialogs).toEqual([])
    expect(enforced.watched.console.join('\n')).toMatch(/Content Security Policy/)
    // The control: the same page without the header runs the script, so the check is real.
    const unprotected = await load(false)
    expect(unprotected.pwned).toBe(1)
    expect(unprotected.watched.dialogs.length).toBeGreaterThan(0)
  })
})
