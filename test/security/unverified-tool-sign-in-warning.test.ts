import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createIntegrationClient, locationOf, openConsent } from '../http/authorize/support.js'
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

/**
 * A self-registered tool impersonating the school on the sign-in page: the page shown on
 * the way to a tool that registered itself carries the same "nobody at the school has
 * reviewed it" warning as the consent page (one implementation, the same words), before
 * the person types a password; an integration the school registered carries none.
 */

const WARNING = /<p class="warning" role="note">[\s\S]*?<\/p>/

let server: TestServer
let tool: TestClient
let person: TestPerson
beforeAll(async () => {
  server = await startTestServer()
  tool = await registerTestClient(server, { client_name: 'Official School Portal' })
  person = await createPerson(server, 'student')
})
afterAll(async () => {
  await server?.close()
})

/** Starts an authorization for `client` and returns the sign-in page it leads to. */
async function signInPageFor(browser: Browser, client: TestClient): Promise<string> {
  const response = await browser.request(authorizePath(client, createPkce()))
  expect(response.status).toBe(303)
  expect(locationOf(response)).toMatch(/^\/login\?request=/)
  const page = await browser.request(locationOf(response))
  expect(page.status).toBe(200)
  return page.text()
}

describe('sign-in on the way to a self-registered tool', () => {
  it('warns that the tool is unverified, with the very words of the consent page', async () => {
    const login = await signInPageFor(new Browser(server), tool)
    expect(login).toContain('Official School Portal')
    const warning = WARNING.exec(login)?.[0]
    expect(warning).toContain('Unverified tool')
    expect(warning).toMatch(/nobody at .* has reviewed it/)

    const consent = await openConsent(new Browser(server), tool, person)
    expect(WARNING.exec(consent.page)?.[0]).toBe(warning)
  })

  it('keeps the warning when the sign-in form is shown again after a wrong password', async () => {
    const browser = new Browser(server)
    const page = await signInPageFor(browser, tool)
    const again = await browser.post('/login', {
      csrf: formField(page, 'csrf') ?? '',
      request: formField(page, 'request') ?? '',
      email: person.email,
      password: 'not the password',
    })
    expect(again.status).toBe(401)
    expect(WARNING.exec(await again.text())?.[0]).toContain('Unverified tool')
  })
})

describe('sign-in without a self-registered tool', () => {
  it('shows no unverified warning on the way to an integration the school registered', async () => {
    const integration = await createIntegrationClient(server, { name: 'Vetted Reports' })
    const page = await signInPageFor(new Browser(server), integration)
    expect(page).toContain('Vetted Reports')
    expect(page).not.toContain('Unverified')
  })

  it('shows no warning on the plain sign-in page', async () => {
    const page = await (await new Browser(server).request('/login')).text()
    expect(page).not.toContain('Unverified')
  })
})
