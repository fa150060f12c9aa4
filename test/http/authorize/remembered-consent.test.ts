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
  codeRow,
  consentForm,
  createIntegrationClient,
  decide,
  expectErrorRedirect,
  locationOf,
  openConsent,
  signedInBrowser,
  signIn,
} from './support.js'

/**
 * Issue 3, "Consent": self-registered clients are asked every time; registered integrations
 * may remember a person's consent for the same scopes.
 */

let server: TestServer
let person: TestPerson

beforeAll(async () => {
  server = await startTestServer()
  person = await createPerson(server)
})
afterAll(async () => {
  await server?.close()
})

const SCOPE = 'openid profile courses:read'

/** An integration the person approved once for `scope`, and the browser they used. */
async function approvedOnce(
  scope = SCOPE,
  who: TestPerson = person,
): Promise<{ integration: TestClient; browser: Browser }> {
  const integration = await createIntegrationClient(server)
  const browser = new Browser(server)
  const form = await openConsent(browser, integration, who, { scope })
  expect(clientRedirect(await decide(browser, form)).searchParams.get('code')).toMatch(/^pac_/)
  return { integration, browser }
}

/** Asserts the response went straight to the client with a code; returns the code. */
function expectCode(response: Response, client: TestClient, state?: string): string {
  const location = clientRedirect(response)
  expect(`${location.origin}${location.pathname}`).toBe(client.redirectUri)
  expect(location.searchParams.get('iss')).toBe(server.issuer)
  if (state !== undefined) expect(location.searchParams.get('state')).toBe(state)
  const code = location.searchParams.get('code') ?? ''
  expect(code).toMatch(/^pac_/)
  return code
}

describe('registered integrations remember consent', () => {
  it('goes straight to the callback with a code the second time, with the same scopes', async () => {
    const { integration, browser } = await approvedOnce()
    const response = await browser.request(
      authorizePath(integration, createPkce(), { scope: SCOPE, state: 'again' }),
    )
    const code = expectCode(response, integration, 'again')
    expect((await codeRow(server, code))?.scope).toBe(SCOPE)
  })

  it('remembers consent across sign-ins: a new session goes straight to the callback after sign-in', async () => {
    const { integration } = await approvedOnce()
    const browser = new Browser(server)
    const response = await browser.request(
      authorizePath(integration, createPkce(), { scope: SCOPE }),
    )
    const signedIn = await signIn(browser, person, locationOf(response))
    expectCode(await browser.request(locationOf(signedIn)), integration)
  })

  it('goes straight to the callback for a subset of the approved scopes', async () => {
    const { integration, browser } = await approvedOnce()
    const response = await browser.request(
      authorizePath(integration, createPkce(), { scope: 'openid' }),
    )
    const code = expectCode(response, integration)
    expect((await codeRow(server, code))?.scope).toBe('openid')
  })

  it('asks again when more scopes are requested than were approved', async () => {
    const { integration, browser } = await approvedOnce()
    const response = await browser.request(
      authorizePath(integration, createPkce(), { scope: `${SCOPE} courses:write` }),
    )
    await consentForm(response)
  })

  it('asks again with prompt=consent', async () => {
    const { integration, browser } = await approvedOnce()
    const response = await browser.request(
      authorizePath(integration, createPkce(), { scope: SCOPE, prompt: 'consent' }),
    )
    const form = await consentForm(response)
    expect(form.page).toContain('value="approve"')
  })

  it('gives a code with prompt=none once the person approved, without showing a page', async () => {
    const { integration, browser } = await approvedOnce()
    const response = await browser.request(
      authorizePath(integration, createPkce(), { scope: SCOPE, prompt: 'none', state: 'silent' }),
    )
    expectCode(response, integration, 'silent')
  })

  it('answers consent_required to prompt=none for scopes beyond those approved', async () => {
    const { integration, browser } = await approvedOnce()
    const response = await browser.request(
      authorizePath(integration, createPkce(), {
        scope: `${SCOPE} students:read`,
        prompt: 'none',
        state: 's',
      }),
    )
    expectErrorRedirect(response, server, integration, 'consent_required', 's')
  })

  it('answers login_required to prompt=none without a session, even after an approval', async () => {
    const { integration } = await approvedOnce()
    const response = await new Browser(server).request(
      authorizePath(integration, createPkce(), { scope: SCOPE, prompt: 'none', state: 's' }),
    )
    expectErrorRedirect(response, server, integration, 'login_required', 's')
  })

  it("does not use one person's consent for another person", async () => {
    const { integration } = await approvedOnce()
    const other = await createPerson(server)
    const browser = await signedInBrowser(server, other)
    await consentForm(
      await browser.request(authorizePath(integration, createPkce(), { scope: SCOPE })),
    )
  })

  it('does not use consent given to one integration for another', async () => {
    const { browser } = await approvedOnce()
    const another = await createIntegrationClient(server)
    await consentForm(await browser.request(authorizePath(another, createPkce(), { scope: SCOPE })))
  })

  it('asks again for another resource', async () => {
    const { integration, browser } = await approvedOnce()
    await server.deps.resourceServers.insert({
      id: server.deps.random.id('rsv'),
      identifier: 'https://api.school.example',
      name: 'School API',
      secretDigest: 'unused',
      createdAt: server.deps.clock.now(),
    })
    const response = await browser.request(
      authorizePath(integration, createPkce(), {
        scope: SCOPE,
        resource: 'https://api.school.example',
      }),
    )
    await consentForm(response)
  })

  it('does not remember a denial', async () => {
    const integration = await createIntegrationClient(server)
    const browser = new Browser(server)
    const form = await openConsent(browser, integration, person, { scope: SCOPE })
    expect(clientRedirect(await decide(browser, form, 'deny')).searchParams.get('error')).toBe(
      'access_denied',
    )
    await consentForm(
      await browser.request(authorizePath(integration, createPkce(), { scope: SCOPE })),
    )
  })

  it("asks again when part of the request was beyond the person's role last time", async () => {
    const student = await createPerson(server, 'student')
    const { integration, browser } = await approvedOnce('openid courses:read', student)
    const form = await consentForm(
      await browser.request(
        authorizePath(integration, createPkce(), { scope: 'openid courses:read' }),
      ),
    )
    expect(form.page).toContain('Not available to your role')
  })
})

describe('self-registered clients are asked every time', () => {
  it('shows the consent page again for the same scopes after an approval', async () => {
    const client = await registerTestClient(server)
    const browser = new Browser(server)
    const first = await openConsent(browser, client, person, { scope: SCOPE })
    expect(clientRedirect(await decide(browser, first)).searchParams.get('code')).toMatch(/^pac_/)
    const second = await consentForm(
      await browser.request(authorizePath(client, createPkce(), { scope: SCOPE })),
    )
    expect(second.page).toContain('Unverified tool')
  })

  it('stores no remembered consent for a self-registered client', async () => {
    const client = await registerTestClient(server)
    const browser = new Browser(server)
    const form = await openConsent(browser, client, person, { scope: SCOPE })
    await decide(browser, form)
    expect(await server.deps.consents.find(person.user.id, client.clientId)).toBeUndefined()
  })
})
