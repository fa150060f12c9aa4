import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  authorizePath,
  Browser,
  createPerson,
  createPkce,
  formField,
  registerTestClient,
  runAuthorization,
  type TestClient,
  type TestPerson,
} from '../../support/flow.js'
import { startTestServer, type TestServer } from '../../support/server.js'
import {
  clientRedirect,
  codeRow,
  consentForm,
  decide,
  locationOf,
  requestIdFromLogin,
  signedInBrowser,
  signIn,
  TestClock,
} from './support.js'

/**
 * Issue 3, "GET /oauth/authorize": state, nonce, prompt=login|consent, login_hint and
 * max_age are honoured. The server runs on a clock the tests move by hand.
 */

const clock = new TestClock()
let server: TestServer
let client: TestClient
let person: TestPerson

beforeAll(async () => {
  server = await startTestServer({ clock })
  client = await registerTestClient(server)
  person = await createPerson(server)
})
afterAll(async () => {
  await server?.close()
})

/** Signs in on the page the response redirected to and follows on to the consent page. */
async function signInAndContinue(browser: Browser, response: Response): Promise<Response> {
  const signedIn = await signIn(browser, person, locationOf(response))
  expect(signedIn.status).toBe(303)
  return browser.request(locationOf(signedIn))
}

describe('state', () => {
  it('returns state unchanged with the code', async () => {
    const state = 'Zm9v-bar_baz.~ with spaces & symbols=?/'
    const result = await runAuthorization(server, client, person, { extra: { state } })
    expect(result.code).toBeDefined()
    expect(result.location.searchParams.get('state')).toBe(state)
  })

  it('sends no state with the code when the client sent none', async () => {
    const pkce = createPkce()
    const browser = await signedInBrowser(server, person)
    const path = authorizePath(client, pkce).replace(/&state=[^&]*/, '')
    const form = await consentForm(await browser.request(path))
    const location = clientRedirect(await decide(browser, form))
    expect(location.searchParams.get('code')).toMatch(/^pac_/)
    expect(location.searchParams.has('state')).toBe(false)
  })

  it('returns state with access_denied', async () => {
    const result = await runAuthorization(server, client, person, {
      extra: { state: 'deny-me' },
      decision: 'deny',
    })
    expect(result.location.searchParams.get('error')).toBe('access_denied')
    expect(result.location.searchParams.get('state')).toBe('deny-me')
  })
})

describe('nonce', () => {
  it('stores the nonce with the code', async () => {
    const nonce = 'n-0S6_WzA2Mj'
    const result = await runAuthorization(server, client, person, { extra: { nonce } })
    const row = await codeRow(server, result.code ?? '')
    expect(row?.nonce).toBe(nonce)
  })

  it('stores no nonce when none was sent', async () => {
    const result = await runAuthorization(server, client, person)
    expect((await codeRow(server, result.code ?? ''))?.nonce).toBeNull()
  })

  it('keeps a nonce of 512 characters exactly', async () => {
    const nonce = 'x'.repeat(512)
    const result = await runAuthorization(server, client, person, { extra: { nonce } })
    expect((await codeRow(server, result.code ?? ''))?.nonce).toBe(nonce)
  })
})

describe('prompt=login', () => {
  it('asks a signed-in person to sign in again', async () => {
    const browser = await signedInBrowser(server, person)
    clock.advance(5_000)
    const response = await browser.request(authorizePath(client, createPkce(), { prompt: 'login' }))
    expect(requestIdFromLogin(response)).toMatch(/^par_/)
  })

  it('does not let the old sign-in continue the request without signing in again', async () => {
    const browser = await signedInBrowser(server, person)
    clock.advance(5_000)
    const response = await browser.request(authorizePath(client, createPkce(), { prompt: 'login' }))
    const request = requestIdFromLogin(response)
    const skipped = await browser.request(`/oauth/authorize/continue?request=${request}`)
    expect(skipped.status).toBe(303)
    expect(locationOf(skipped)).toBe(`/login?request=${request}`)
  })

  it('shows the consent page after the new sign-in, and the code carries the new auth_time', async () => {
    const browser = await signedInBrowser(server, person)
    clock.advance(5_000)
    const response = await browser.request(authorizePath(client, createPkce(), { prompt: 'login' }))
    clock.advance(2_000)
    const signedInAt = clock.now()
    const form = await consentForm(await signInAndContinue(browser, response))
    const location = clientRedirect(await decide(browser, form))
    const row = await codeRow(server, location.searchParams.get('code') ?? '')
    expect(row?.auth_time).toBe(signedInAt)
  })

  it('accepts prompt=login consent (both values)', async () => {
    const browser = await signedInBrowser(server, person)
    clock.advance(1_000)
    const response = await browser.request(
      authorizePath(client, createPkce(), { prompt: 'login consent' }),
    )
    await consentForm(await signInAndContinue(browser, response))
  })
})

describe('prompt=consent', () => {
  it('shows the consent page to a signed-in person', async () => {
    const browser = await signedInBrowser(server, person)
    const response = await browser.request(
      authorizePath(client, createPkce(), { prompt: 'consent' }),
    )
    await consentForm(response)
  })

  it('sends a person who is not signed in to sign in first', async () => {
    const response = await new Browser(server).request(
      authorizePath(client, createPkce(), { prompt: 'consent' }),
    )
    expect(requestIdFromLogin(response)).toMatch(/^par_/)
  })
})

describe('login_hint', () => {
  it('pre-fills the e-mail field of the sign-in page', async () => {
    const browser = new Browser(server)
    const response = await browser.request(
      authorizePath(client, createPkce(), { login_hint: 'hinted.person@example.com' }),
    )
    const page = await (await browser.request(locationOf(response))).text()
    expect(page).toMatch(/<input id="email" name="email"[^>]* value="hinted\.person@example\.com"/)
    expect(formField(page, 'request')).toBe(requestIdFromLogin(response))
  })

  it('escapes the hint in the page', async () => {
    const browser = new Browser(server)
    const hint = '"><script>alert(1)</script>'
    const response = await browser.request(
      authorizePath(client, createPkce(), { login_hint: hint }),
    )
    const page = await (await browser.request(locationOf(response))).text()
    expect(page).not.toContain('<script>')
    expect(page).toContain('value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"')
  })

  it('ignores a hint longer than an e-mail address can be', async () => {
    const browser = new Browser(server)
    const hint = `${'a'.repeat(320)}@example.com`
    const response = await browser.request(
      authorizePath(client, createPkce(), { login_hint: hint }),
    )
    const page = await (await browser.request(locationOf(response))).text()
    expect(page).not.toContain(hint)
    expect(page).toMatch(/<input id="email"[^>]* value=""/)
  })

  it('lets the person sign in with another account than the hinted one', async () => {
    const result = await runAuthorization(server, client, person, {
      extra: { login_hint: 'somebody.else@example.com' },
    })
    const row = await codeRow(server, result.code ?? '')
    expect(row?.user_id).toBe(person.user.id)
  })

  it('leaves the e-mail field empty without a hint', async () => {
    const browser = new Browser(server)
    const response = await browser.request(authorizePath(client, createPkce()))
    const page = await (await browser.request(locationOf(response))).text()
    expect(page).toMatch(/<input id="email"[^>]* value=""/)
  })
})

describe('max_age', () => {
  it('asks for a new sign-in when the last one is older than max_age', async () => {
    const browser = await signedInBrowser(server, person)
    clock.advance(120_000)
    const response = await browser.request(authorizePath(client, createPkce(), { max_age: '60' }))
    expect(requestIdFromLogin(response)).toMatch(/^par_/)
  })

  it('does not let an old sign-in continue past max_age', async () => {
    const browser = await signedInBrowser(server, person)
    clock.advance(120_000)
    const response = await browser.request(authorizePath(client, createPkce(), { max_age: '60' }))
    const request = requestIdFromLogin(response)
    const skipped = await browser.request(`/oauth/authorize/continue?request=${request}`)
    expect(locationOf(skipped)).toBe(`/login?request=${request}`)
  })

  it('shows consent after the new sign-in and records its time in the code', async () => {
    const browser = await signedInBrowser(server, person)
    clock.advance(120_000)
    const response = await browser.request(authorizePath(client, createPkce(), { max_age: '60' }))
    clock.advance(3_000)
    const signedInAt = clock.now()
    const form = await consentForm(await signInAndContinue(browser, response))
    const location = clientRedirect(await decide(browser, form))
    expect((await codeRow(server, location.searchParams.get('code') ?? ''))?.auth_time).toBe(
      signedInAt,
    )
  })

  it('goes straight to consent when the sign-in is recent enough', async () => {
    const browser = await signedInBrowser(server, person)
    clock.advance(120_000)
    const response = await browser.request(authorizePath(client, createPkce(), { max_age: '300' }))
    await consentForm(response)
  })

  it('counts a sign-in exactly max_age seconds old as recent enough', async () => {
    const browser = await signedInBrowser(server, person)
    clock.advance(60_000)
    const response = await browser.request(authorizePath(client, createPkce(), { max_age: '60' }))
    await consentForm(response)
  })

  it('with max_age=0 always asks to sign in, and accepts the sign-in made for this request', async () => {
    const browser = await signedInBrowser(server, person)
    clock.advance(1_000)
    const response = await browser.request(authorizePath(client, createPkce(), { max_age: '0' }))
    const request = requestIdFromLogin(response)
    const signedIn = await signIn(browser, person, locationOf(response))
    // A person takes a moment; the sign-in they just made for this request must still count.
    clock.advance(1_000)
    const form = await consentForm(await browser.request(locationOf(signedIn)))
    expect(form.request).toBe(request)
  })

  it('with max_age=0 asks to sign in even after a sign-in in the same millisecond (OIDC Core §3.1.2.1: max_age=0 is prompt=login)', async () => {
    // The clock stands still: the old sign-in is exactly as old as the request, 0 seconds.
    const browser = await signedInBrowser(server, person)
    const response = await browser.request(authorizePath(client, createPkce(), { max_age: '0' }))
    expect(requestIdFromLogin(response)).toMatch(/^par_/)
  })

  it('accepts a fresh sign-in for the request even if it took longer than max_age', async () => {
    const browser = new Browser(server)
    const response = await browser.request(authorizePath(client, createPkce(), { max_age: '5' }))
    const signedIn = await signIn(browser, person, locationOf(response))
    clock.advance(6_000)
    await consentForm(await browser.request(locationOf(signedIn)))
  })
})
