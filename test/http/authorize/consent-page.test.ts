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
  createIntegrationClient,
  decide,
  expectErrorRedirect,
  locationOf,
  openConsent,
} from './support.js'

/**
 * Issue 3, "Consent": the page names the client (escaped), warns about self-registered
 * tools, shows where the code goes, lists scopes grouped with write access visible, shows
 * what the person's role cannot grant as unavailable and never grants it; Approve and Deny.
 */

let server: TestServer
let client: TestClient
let owner: TestPerson

beforeAll(async () => {
  server = await startTestServer()
  client = await registerTestClient(server, { client_name: 'Course Sync' })
  owner = await createPerson(server, 'owner')
})
afterAll(async () => {
  await server?.close()
})

/** The `<li>` texts of one scope group (`identity`, `read`, `write`, `unavailable`). */
function group(page: string, name: string): string[] {
  const list = new RegExp(`<ul class="scopes ${name}">(.*?)</ul>`, 's').exec(page)?.[1] ?? ''
  return [...list.matchAll(/<li>(.*?)<\/li>/gs)].map((m) =>
    (m[1] ?? '')
      .replace(/<[^>]+>/g, '')
      .replaceAll('&#39;', "'")
      .replaceAll('&amp;', '&'),
  )
}

async function countCodes(): Promise<number> {
  const row = await server.deps.database.db
    .selectFrom('authorization_codes')
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

describe('the consent page names the client', () => {
  it('shows the registered client name', async () => {
    const { page } = await openConsent(new Browser(server), client, owner)
    expect(page).toContain('<span class="client-name">Course Sync</span> wants access')
    expect(page).toContain(client.clientId)
  })

  it('escapes a client name carrying markup', async () => {
    const hostile = '<img src=x onerror=alert(1)>'
    const evil = await registerTestClient(server, { client_name: hostile })
    const { page } = await openConsent(new Browser(server), evil, owner)
    expect(page).not.toContain('<img')
    expect(page).toContain('&lt;img src=x onerror=alert(1)&gt;')
  })

  it('escapes a client name carrying quotes and ampersands', async () => {
    const evil = await registerTestClient(server, { client_name: `Tom & "Jerry's" <b>` })
    const { page } = await openConsent(new Browser(server), evil, owner)
    expect(page).toContain('Tom &amp; &quot;Jerry&#39;s&quot; &lt;b&gt;')
    expect(page).not.toContain('<b>')
  })

  it('escapes the client name on the sign-in page too', async () => {
    const evil = await registerTestClient(server, { client_name: '<script>alert(1)</script>' })
    const browser = new Browser(server)
    const response = await browser.request(authorizePath(evil, createPkce()))
    const page = await (await browser.request(locationOf(response))).text()
    expect(page).not.toContain('<script>')
    expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;')
  })

  it('calls a client without a name an unnamed application', async () => {
    const unnamed = await registerTestClient(server, { client_name: undefined })
    const { page } = await openConsent(new Browser(server), unnamed, owner)
    expect(page).toContain('An unnamed application')
  })
})

describe('the consent page says who vetted the client', () => {
  it('says plainly that a self-registered tool registered itself and is unverified', async () => {
    const { page } = await openConsent(new Browser(server), client, owner)
    expect(page).toContain('Unverified tool')
    expect(page).toContain('registered itself')
    expect(page).toMatch(/nobody at .* has reviewed it/)
  })

  it('does not call a registered integration unverified', async () => {
    const integration = await createIntegrationClient(server, { name: 'Vetted Reports' })
    const { page } = await openConsent(new Browser(server), integration, owner)
    expect(page).toContain('Vetted Reports')
    expect(page).not.toContain('Unverified')
    expect(page).not.toContain('registered itself')
    expect(page).toContain('An integration registered by')
  })
})

describe('the consent page shows where the code will be sent', () => {
  it('shows 127.0.0.1 and the registered port', async () => {
    const { page } = await openConsent(new Browser(server), client, owner)
    expect(page).toContain('<code class="destination">127.0.0.1:49152</code>')
  })

  it('shows the port actually requested when a loopback client moved port', async () => {
    const { page } = await openConsent(new Browser(server), client, owner, {
      redirect_uri: 'http://127.0.0.1:61000/callback',
    })
    expect(page).toContain('<code class="destination">127.0.0.1:61000</code>')
  })

  it("shows an integration's https host", async () => {
    const integration = await createIntegrationClient(server, {
      redirectUris: ['https://reports.example.org/oauth/back'],
    })
    const { page } = await openConsent(new Browser(server), integration, owner)
    expect(page).toContain('<code class="destination">reports.example.org</code>')
  })
})

describe('the consent page lists the scopes in plain language, grouped', () => {
  it('groups identity, read and write scopes, with write access under its own heading', async () => {
    const { page } = await openConsent(new Browser(server), client, owner, {
      scope: 'openid profile email courses:read students:read courses:write',
    })
    expect(group(page, 'identity')).toEqual([
      'Confirm that it is you (your account identifier) openid',
      'Your name, your profile picture, and when you last changed your profile profile',
      'Your e-mail address email',
    ])
    expect(group(page, 'read')).toEqual([
      "View the school's courses courses:read",
      "View the school's students students:read",
    ])
    expect(group(page, 'write')).toEqual([
      "Create, change and delete the school's courses courses:write",
    ])
    expect(page).toContain('<h2 class="write">Write access: it can change your school</h2>')
    expect(group(page, 'unavailable')).toEqual([])
  })

  it('shows no write heading when nothing writes', async () => {
    const { page } = await openConsent(new Browser(server), client, owner, {
      scope: 'openid courses:read',
    })
    expect(page).not.toContain('Write access')
    expect(group(page, 'write')).toEqual([])
  })

  it("describes the person's own account scopes as theirs", async () => {
    const { page } = await openConsent(new Browser(server), client, owner, {
      scope: 'account:read account:write',
    })
    expect(group(page, 'read')).toEqual(['View your own account profile account:read'])
    expect(group(page, 'write')).toEqual([
      'Create, change and delete your own account profile account:write',
    ])
  })

  it('offers Approve and Deny, and says who is signed in', async () => {
    const { page } = await openConsent(new Browser(server), client, owner)
    expect(page).toContain('<button type="submit" name="decision" value="approve"')
    expect(page).toContain('<button type="submit" name="decision" value="deny"')
    expect(page).toContain(owner.email)
    expect(page).toContain('Not you? Sign out')
  })
})

describe("scopes beyond the person's role are shown as unavailable and never granted", () => {
  it('lists courses:read as unavailable to a student', async () => {
    const student = await createPerson(server, 'student')
    const { page } = await openConsent(new Browser(server), client, student, {
      scope: 'openid courses:read',
    })
    expect(group(page, 'unavailable')).toEqual(["View the school's courses courses:read"])
    expect(group(page, 'read')).toEqual([])
    expect(group(page, 'identity')).toHaveLength(1)
    expect(page).toContain('Not available to your role (will not be granted)')
    expect(page).toContain('value="approve"')
  })

  it('gives a student who approves openid + courses:read a code for openid alone', async () => {
    const student = await createPerson(server, 'student')
    const browser = new Browser(server)
    const form = await openConsent(browser, client, student, {
      scope: 'openid courses:read',
      state: 'stu',
    })
    const location = clientRedirect(await decide(browser, form))
    const code = location.searchParams.get('code') ?? ''
    expect(code).toMatch(/^pac_/)
    const row = await codeRow(server, code)
    expect(row?.scope).toBe('openid')
    const grant = await server.deps.database.db
      .selectFrom('grants')
      .select('scope')
      .where('id', '=', row?.grant_id ?? '')
      .executeTakeFirst()
    expect(grant?.scope).toBe('openid')
  })

  it('shows a student asking only for courses:write no Approve button', async () => {
    const student = await createPerson(server, 'student')
    const { page } = await openConsent(new Browser(server), client, student, {
      scope: 'courses:write',
    })
    expect(page).not.toContain('value="approve"')
    expect(page).toContain('value="deny"')
    expect(page).toContain('None of the requested access can be granted to your account.')
    expect(group(page, 'unavailable')).toEqual([
      "Create, change and delete the school's courses courses:write",
    ])
  })

  it('answers a forged approval of nothing grantable with invalid_scope and no code', async () => {
    const student = await createPerson(server, 'student')
    const browser = new Browser(server)
    const form = await openConsent(browser, client, student, {
      scope: 'courses:write',
      state: 'forged',
    })
    const before = await countCodes()
    const response = await decide(browser, form, 'approve')
    expectErrorRedirect(response, server, client, 'invalid_scope', 'forged')
    expect(await countCodes()).toBe(before)
  })

  it('lets a lecturer grant courses:read but not courses:write', async () => {
    const lecturer = await createPerson(server, 'lecturer')
    const browser = new Browser(server)
    const form = await openConsent(browser, client, lecturer, {
      scope: 'openid courses:read courses:write curriculum:write',
    })
    expect(group(form.page, 'unavailable')).toEqual([
      "Create, change and delete the school's courses courses:write",
    ])
    const location = clientRedirect(await decide(browser, form))
    const row = await codeRow(server, location.searchParams.get('code') ?? '')
    expect(row?.scope.split(' ').sort()).toEqual(['courses:read', 'curriculum:write', 'openid'])
  })

  it('lets a student grant what every person may: openid profile email account:read account:write', async () => {
    const student = await createPerson(server, 'student')
    const browser = new Browser(server)
    const scope = 'openid profile email account:read account:write'
    const form = await openConsent(browser, client, student, { scope })
    expect(group(form.page, 'unavailable')).toEqual([])
    const location = clientRedirect(await decide(browser, form))
    expect((await codeRow(server, location.searchParams.get('code') ?? ''))?.scope).toBe(scope)
  })
})

describe('Approve and Deny', () => {
  it('redirects with code, state and iss on Approve', async () => {
    const browser = new Browser(server)
    const form = await openConsent(browser, client, owner, { state: 'ok' })
    const location = clientRedirect(await decide(browser, form))
    expect(`${location.origin}${location.pathname}`).toBe(client.redirectUri)
    expect([...location.searchParams.keys()].sort()).toEqual(['code', 'iss', 'state'])
    expect(location.searchParams.get('state')).toBe('ok')
    expect(location.searchParams.get('iss')).toBe(server.issuer)
  })

  it('redirects with access_denied, state and iss on Deny, and issues no code', async () => {
    const browser = new Browser(server)
    const form = await openConsent(browser, client, owner, { state: 'no' })
    const before = await countCodes()
    const response = await decide(browser, form, 'deny')
    expectErrorRedirect(response, server, client, 'access_denied', 'no')
    expect(await countCodes()).toBe(before)
  })

  it('treats a decision that is not "approve" as a denial', async () => {
    const browser = new Browser(server)
    const form = await openConsent(browser, client, owner, { state: 'odd' })
    const response = await browser.post('/oauth/authorize/decision', {
      request: form.request,
      csrf: form.csrf,
      decision: 'APPROVE',
    })
    expectErrorRedirect(response, server, client, 'access_denied', 'odd')
  })
})
