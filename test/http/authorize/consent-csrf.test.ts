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
import {
  clientRedirect,
  consentForm,
  decide,
  expectErrorPage,
  locationOf,
  openConsent,
  requestIdFromLogin,
  signIn,
  TestClock,
} from './support.js'

/**
 * Issue 3, "Consent": the decision form carries a CSRF token bound to the session and to
 * this one authorization request, and it works once. Requests expire after 10 minutes.
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

async function countCodes(): Promise<number> {
  const row = await server.deps.database.db
    .selectFrom('authorization_codes')
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/** A browser holding a copy of some of another browser's cookies. */
function copyCookies(from: Browser, names: (name: string) => boolean): Browser {
  const copy = new Browser(server)
  for (const [name, value] of from.cookies) if (names(name)) copy.cookies.set(name, value)
  return copy
}

describe('the decision token works once', () => {
  it('refuses a replayed approval with an error page and issues no second code', async () => {
    const browser = new Browser(server)
    const form = await openConsent(browser, client, person)
    const first = clientRedirect(await decide(browser, form))
    expect(first.searchParams.get('code')).toMatch(/^pac_/)
    const before = await countCodes()
    const page = await expectErrorPage(await decide(browser, form))
    expect(page).toContain('already answered')
    expect(await countCodes()).toBe(before)
  })

  it('refuses an approval replayed after a denial', async () => {
    const browser = new Browser(server)
    const form = await openConsent(browser, client, person)
    expect(clientRedirect(await decide(browser, form, 'deny')).searchParams.get('error')).toBe(
      'access_denied',
    )
    await expectErrorPage(await decide(browser, form, 'approve'))
  })

  it('refuses a second decision sent at the same time as the first (one wins)', async () => {
    const browser = new Browser(server)
    const form = await openConsent(browser, client, person)
    const answers = await Promise.all([decide(browser, form), decide(browser, form)])
    const redirects = answers.filter((r) => r.status === 303)
    expect(redirects).toHaveLength(1)
    expect(answers.filter((r) => r.status === 400)).toHaveLength(1)
  })
})

describe('the decision token must be present and match', () => {
  it('answers 403 when the token is missing, and the request stays usable', async () => {
    const browser = new Browser(server)
    const form = await openConsent(browser, client, person)
    const response = await browser.post('/oauth/authorize/decision', {
      request: form.request,
      decision: 'approve',
    })
    const page = await expectErrorPage(response, 403)
    expect(page).toContain('Request not valid here')
    expect(clientRedirect(await decide(browser, form)).searchParams.get('code')).toMatch(/^pac_/)
  })

  it('answers 403 for an empty token', async () => {
    const browser = new Browser(server)
    const form = await openConsent(browser, client, person)
    await expectErrorPage(await decide(browser, { ...form, csrf: '' }), 403)
  })

  it('answers 403 for a made-up token', async () => {
    const browser = new Browser(server)
    const form = await openConsent(browser, client, person)
    await expectErrorPage(await decide(browser, { ...form, csrf: `pcf_${'A'.repeat(43)}` }), 403)
  })

  it("answers 403 for a token from another session's consent page", async () => {
    const mine = new Browser(server)
    const theirs = new Browser(server)
    const myForm = await openConsent(mine, client, person)
    const theirForm = await openConsent(theirs, client, await createPerson(server))
    const response = await decide(mine, { request: myForm.request, csrf: theirForm.csrf })
    await expectErrorPage(response, 403)
  })

  it('answers 403 for a token of another request in the same session', async () => {
    const browser = new Browser(server)
    const first = await openConsent(browser, client, person)
    const second = consentForm(await browser.request(authorizePath(client, createPkce())))
    const { request, csrf } = await second
    expect(request).not.toBe(first.request)
    await expectErrorPage(await decide(browser, { request, csrf: first.csrf }), 403)
    await expectErrorPage(await decide(browser, { request: first.request, csrf }), 403)
  })

  it('replaces the token when the consent page is shown again', async () => {
    const browser = new Browser(server)
    const old = await openConsent(browser, client, person)
    const again = await consentForm(
      await browser.request(`/oauth/authorize/continue?request=${old.request}`),
    )
    expect(again.csrf).not.toBe(old.csrf)
    await expectErrorPage(await decide(browser, old), 403)
    expect(clientRedirect(await decide(browser, again)).searchParams.get('code')).toMatch(/^pac_/)
  })

  it('answers an unknown request id with an error page', async () => {
    const browser = new Browser(server)
    const form = await openConsent(browser, client, person)
    await expectErrorPage(await decide(browser, { ...form, request: `par_${'B'.repeat(43)}` }))
    await expectErrorPage(await decide(browser, { ...form, request: 'not-a-request' }))
  })
})

describe('the decision must come from the browser and session that saw the page', () => {
  it('answers 403 to a decision from another browser with no cookies at all', async () => {
    const browser = new Browser(server)
    const form = await openConsent(browser, client, person)
    await expectErrorPage(await decide(new Browser(server), form), 403)
  })

  it('answers 403 when the browser cookie is missing, even with the session cookie', async () => {
    const browser = new Browser(server)
    const form = await openConsent(browser, client, person)
    const sessionOnly = copyCookies(browser, (name) => name.includes('session'))
    expect(sessionOnly.cookies.size).toBe(1)
    await expectErrorPage(await decide(sessionOnly, form), 403)
  })

  it('answers 403 when the session cookie is missing, even with the browser cookie', async () => {
    const browser = new Browser(server)
    const form = await openConsent(browser, client, person)
    const browserOnly = copyCookies(browser, (name) => name.includes('browser'))
    expect(browserOnly.cookies.size).toBe(1)
    await expectErrorPage(await decide(browserOnly, form), 403)
  })

  it('answers 403 to another browser signed in as the same person', async () => {
    const browser = new Browser(server)
    const form = await openConsent(browser, client, person)
    const other = new Browser(server)
    expect((await signIn(other, person)).status).toBe(303)
    await expectErrorPage(await decide(other, form), 403)
  })

  it('refuses to show the pending request in another browser', async () => {
    const browser = new Browser(server)
    const form = await openConsent(browser, client, person)
    const other = new Browser(server)
    await signIn(other, person)
    const response = await other.request(`/oauth/authorize/continue?request=${form.request}`)
    await expectErrorPage(response, 403)
  })

  it('is invalidated by signing in as someone else in between', async () => {
    const browser = new Browser(server)
    const form = await openConsent(browser, client, person)
    const someoneElse = await createPerson(server)
    expect((await signIn(browser, someoneElse)).status).toBe(303)
    const before = await countCodes()
    await expectErrorPage(await decide(browser, form), 403)
    expect(await countCodes()).toBe(before)
  })

  it('is invalidated by signing in again as the same person (a new session)', async () => {
    const browser = new Browser(server)
    const form = await openConsent(browser, client, person)
    expect((await signIn(browser, person)).status).toBe(303)
    await expectErrorPage(await decide(browser, form), 403)
  })

  it('is invalidated by signing out in between', async () => {
    const browser = new Browser(server)
    const form = await openConsent(browser, client, person)
    const logoutCsrf =
      /action="\/logout"[^>]*><input type="hidden" name="csrf" value="([^"]+)"/.exec(form.page)?.[1]
    expect(logoutCsrf).toBeDefined()
    expect((await browser.post('/logout', { csrf: logoutCsrf ?? '' })).status).toBe(303)
    await expectErrorPage(await decide(browser, form), 403)
  })

  it('answers 403 to a decision on a request that was never shown for consent', async () => {
    const browser = new Browser(server)
    const request = requestIdFromLogin(await browser.request(authorizePath(client, createPkce())))
    expect((await signIn(browser, person)).status).toBe(303)
    await expectErrorPage(await decide(browser, { request, csrf: '' }), 403)
  })
})

describe('an authorization request expires after 10 minutes', () => {
  it('answers the decision on an 11-minute-old request with an error page, not a redirect', async () => {
    const browser = new Browser(server)
    const form = await openConsent(browser, client, person)
    clock.advance(11 * 60_000)
    const page = await expectErrorPage(await decide(browser, form))
    expect(page).toContain('This request has expired')
  })

  it('still accepts the decision just before 10 minutes have passed', async () => {
    const browser = new Browser(server)
    const form = await openConsent(browser, client, person)
    clock.advance(10 * 60_000 - 1)
    expect(clientRedirect(await decide(browser, form)).searchParams.get('code')).toMatch(/^pac_/)
  })

  it('does not continue an expired request after sign-in, and shows an error page for it', async () => {
    const browser = new Browser(server)
    const response = await browser.request(authorizePath(client, createPkce()))
    const request = requestIdFromLogin(response)
    const loginPage = await (await browser.request(locationOf(response))).text()
    clock.advance(11 * 60_000)
    const signedIn = await browser.post('/login', {
      csrf: /name="csrf" value="([^"]+)"/.exec(loginPage)?.[1] ?? '',
      request,
      email: person.email,
      password: person.password,
    })
    expect(signedIn.status).toBe(303)
    expect(locationOf(signedIn)).not.toContain(request)
    const continued = await browser.request(`/oauth/authorize/continue?request=${request}`)
    const page = await expectErrorPage(continued)
    expect(page).toContain('This request has expired')
  })
})
