import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  authorizePath,
  Browser,
  createPerson,
  createPkce,
  registerTestClient,
  type TestClient,
  type TestPerson,
} from '../../support/flow.js'
import { startTestServer, type TestServer } from '../../support/server.js'
import { decide, locationOf, openConsent, signedInBrowser } from './support.js'

/**
 * Issue 3, "Consent": HTML pages send Content-Security-Policy with frame-ancestors 'none'
 * (and no form-action rule that would block the redirect to the loopback callback),
 * X-Frame-Options: DENY, Referrer-Policy: no-referrer, Cache-Control: no-store. They work
 * without JavaScript, are labelled, and read well on a phone.
 */

let server: TestServer
let client: TestClient
let person: TestPerson

beforeAll(async () => {
  server = await startTestServer()
  client = await registerTestClient(server)
  person = await createPerson(server)
})
afterAll(async () => {
  await server?.close()
})

/** The directives of a Content-Security-Policy header, by name. */
function directives(csp: string | null): Map<string, string> {
  const map = new Map<string, string>()
  for (const part of (csp ?? '').split(';')) {
    const [name = '', ...values] = part.trim().split(/\s+/)
    if (name) map.set(name.toLowerCase(), values.join(' '))
  }
  return map
}

function expectPageHeaders(response: Response): void {
  const csp = directives(response.headers.get('content-security-policy'))
  expect(csp.get('frame-ancestors')).toBe("'none'")
  expect(csp.has('form-action')).toBe(false)
  expect(csp.get('default-src')).toBe("'none'")
  expect(csp.get('script-src')).toBeUndefined()
  expect(response.headers.get('x-frame-options')).toBe('DENY')
  expect(response.headers.get('referrer-policy')).toBe('no-referrer')
  expect(response.headers.get('cache-control')).toContain('no-store')
}

/** Every visible input has an id and a <label for> naming it; the page has a viewport. */
function expectAccessibleMarkup(page: string): void {
  expect(page).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">')
  expect(page).toMatch(/<html lang="en">/)
  expect(page).not.toMatch(/<script/i)
  expect(page).not.toMatch(/\son[a-z]+=/i)
  const inputs = [...page.matchAll(/<input\b[^>]*>/g)].map((m) => m[0])
  for (const input of inputs.filter((i) => !/type="hidden"/.test(i))) {
    const id = /\bid="([^"]+)"/.exec(input)?.[1]
    expect(id, `input without id: ${input}`).toBeDefined()
    expect(page).toContain(`<label for="${id}">`)
  }
}

const HTML = /^text\/html; charset=utf-8/

describe('the sign-in page', () => {
  it('sends the page security headers', async () => {
    const response = await new Browser(server).request('/login')
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(HTML)
    expectPageHeaders(response)
  })

  it('labels the e-mail and password inputs and has a viewport', async () => {
    const page = await (await new Browser(server).request('/login')).text()
    expect(page).toContain('<label for="email">')
    expect(page).toContain('<label for="password">')
    expect(page).toMatch(/<input id="email" name="email" type="email" autocomplete="username"/)
    expect(page).toMatch(/<input id="password" name="password" type="password"/)
    expectAccessibleMarkup(page)
  })

  it('sends the headers with a failed sign-in too', async () => {
    const browser = new Browser(server)
    const page = await (await browser.request('/login')).text()
    const response = await browser.post('/login', {
      csrf: /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? '',
      email: 'nobody@example.com',
      password: 'wrong password',
    })
    expect(response.status).toBe(401)
    expectPageHeaders(response)
    expectAccessibleMarkup(await response.text())
  })

  it('sends the headers on the sign-in page of an authorization request', async () => {
    const browser = new Browser(server)
    const response = await browser.request(authorizePath(client, createPkce()))
    expectPageHeaders(response)
    const page = await browser.request(locationOf(response))
    expectPageHeaders(page)
    expectAccessibleMarkup(await page.text())
  })
})

describe('the consent page', () => {
  it('sends the page security headers', async () => {
    const browser = await signedInBrowser(server, person)
    const response = await browser.request(authorizePath(client, createPkce()))
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(HTML)
    expectPageHeaders(response)
  })

  it('has a viewport, no scripts, and real buttons', async () => {
    const { page } = await openConsent(new Browser(server), client, person)
    expectAccessibleMarkup(page)
    expect(page).toMatch(/<form method="post" action="\/oauth\/authorize\/decision"/)
    expect(page).toMatch(
      /<button type="submit" name="decision" value="approve"[^>]*>Approve<\/button>/,
    )
    expect(page).toMatch(/<button type="submit" name="decision" value="deny">Deny<\/button>/)
  })

  it('sends the headers with the redirect to the client', async () => {
    const browser = new Browser(server)
    const form = await openConsent(browser, client, person)
    const response = await decide(browser, form)
    expect(response.status).toBe(303)
    expectPageHeaders(response)
  })
})

describe('error pages', () => {
  it('sends the headers on the unknown-client page', async () => {
    const response = await new Browser(server).request('/oauth/authorize?client_id=pci_nobody')
    expect(response.status).toBe(400)
    expect(response.headers.get('content-type')).toMatch(HTML)
    expectPageHeaders(response)
    const page = await response.text()
    expectAccessibleMarkup(page)
    expect(page).toContain('role="alert"')
  })

  it('sends the headers on the unregistered-redirect-URI page', async () => {
    const path = authorizePath(
      { ...client, redirectUri: 'http://127.0.0.1:49152/elsewhere' },
      createPkce(),
    )
    const response = await new Browser(server).request(path)
    expect(response.status).toBe(400)
    expectPageHeaders(response)
  })

  it('sends the headers on the 403 page of a forged decision', async () => {
    const browser = new Browser(server)
    const form = await openConsent(browser, client, person)
    const response = await decide(browser, { ...form, csrf: 'wrong' })
    expect(response.status).toBe(403)
    expect(response.headers.get('content-type')).toMatch(HTML)
    expectPageHeaders(response)
    expectAccessibleMarkup(await response.text())
  })

  it('sends the headers on the 403 page of a sign-in without its CSRF token', async () => {
    const response = await new Browser(server).post('/login', {
      email: person.email,
      password: person.password,
    })
    expect(response.status).toBe(403)
    expectPageHeaders(response)
  })

  it('does not reveal internals on the error page', async () => {
    const response = await new Browser(server).request('/oauth/authorize?client_id=pci_nobody')
    const page = await response.text()
    expect(page).not.toMatch(/at \w+ \(|node_modules|Error:/)
  })
})

describe('the signed-in page', () => {
  it('sends the page security headers', async () => {
    const browser = await signedInBrowser(server, person)
    const response = await browser.request('/account')
    expect(response.status).toBe(200)
    expectPageHeaders(response)
    expectAccessibleMarkup(await response.text())
  })
})
