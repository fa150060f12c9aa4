import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createIntegration } from '../../../src/oauth/registration/register-client.js'
import {
  type Browser,
  createPerson,
  registerTestClient,
  runAuthorization,
  type TestClient,
} from '../../support/flow.js'
import { createTestClock, postToken, refreshFields } from '../../support/grants.js'
import { readJson } from '../../support/http.js'
import { startTestServer, type TestServer } from '../../support/server.js'
import { ACCOUNT, callApi, issueThroughConsent, signIn } from '../../support/token-lifecycle.js'

const START = Date.parse('2030-01-02T03:04:00Z')
const clock = createTestClock(START)
let server: TestServer
beforeAll(async () => {
  server = await startTestServer({ clock })
})
afterAll(async () => {
  await server?.close()
})

/** One row of a connected-apps table, as the page shows it. */
interface Row {
  readonly name: string
  readonly kind: string
  readonly person: string | undefined
  readonly scopes: string[]
  readonly granted: string
  readonly lastUsed: string
  readonly clientId: string
  readonly userId: string
  readonly csrf: string
}

const decode = (text: string) =>
  text
    .replace(/<[^>]+>/g, '')
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&amp;', '&')
    .trim()

/** Reads the rows of the table that follows the heading matching `heading`. */
function rowsUnder(page: string, heading: RegExp): Row[] {
  const start = page.search(heading)
  if (start < 0) return []
  const rest = page.slice(start)
  const next = rest.indexOf('<h2', 4)
  const section = next < 0 ? rest : rest.slice(0, next)
  return [...section.matchAll(/<tr>\s*<td>([\s\S]*?)<\/tr>/g)].map(([, row = '']) => {
    const cells = [...`<td>${row}`.matchAll(/<td>([\s\S]*?)<\/td>/g)].map((m) => m[1] ?? '')
    const field = (name: string) =>
      new RegExp(`name="${name}" value="([^"]*)"`).exec(row)?.[1] ?? ''
    const withPerson = cells.length === 6
    const [app = '', ...others] = cells
    const [person, access = '', granted = '', lastUsed = ''] = withPerson
      ? others
      : [undefined, ...others]
    return {
      name: decode(/<strong class="client-name">([\s\S]*?)<\/strong>/.exec(app)?.[1] ?? ''),
      kind: decode(/<span class="muted">([\s\S]*?)<\/span>/.exec(app)?.[1] ?? ''),
      person: person === undefined ? undefined : decode(person),
      scopes: [...access.matchAll(/<code>([^<]*)<\/code>/g)].map((m) => m[1] ?? ''),
      granted: decode(granted),
      lastUsed: decode(lastUsed),
      clientId: field('client_id'),
      userId: field('user_id'),
      csrf: field('csrf'),
    }
  })
}

async function accountPage(browser: Browser): Promise<string> {
  const response = await browser.request('/account')
  expect(response.status).toBe(200)
  expect(response.headers.get('content-type')).toMatch(/^text\/html/)
  return response.text()
}

const mine = (page: string) => rowsUnder(page, /<h2>Apps you authorized<\/h2>/)
const everyone = (page: string) => rowsUnder(page, /<h2>All connected apps at /)

/** The CSRF token of the connected-apps forms (not the sign-out form's). */
function accountCsrf(page: string): string {
  const match =
    /action="\/account\/connections\/revoke">\s*<input type="hidden" name="csrf" value="([^"]*)"/.exec(
      page,
    )
  if (!match?.[1]) throw new Error('no revoke form on the page')
  return match[1]
}

function revokeForm(browser: Browser, fields: Record<string, string>): Promise<Response> {
  return browser.post('/account/connections/revoke', fields)
}

async function integration(name: string): Promise<TestClient> {
  const redirectUri = 'https://tool.example.com/callback'
  const { client } = await createIntegration(server.deps, {
    name,
    redirectUris: [redirectUri],
    confidential: false,
  })
  return { clientId: client.clientId, redirectUri }
}

const apiStatus = async (token: string) => (await callApi(server, ACCOUNT, { token })).status

describe('the connected-apps page lists every tool the person authorized', () => {
  it('shows name, self-registered or integration, scopes, when granted and last used', async () => {
    const person = await createPerson(server, 'lecturer')
    const tool = await registerTestClient(server, { client_name: 'Gradebook Sync' })
    const school = await integration('School Timetable')
    clock.advance(60_000)
    await issueThroughConsent(server, { client: tool, person, scope: 'openid account:read' })
    clock.advance(5 * 60_000)
    await issueThroughConsent(server, {
      client: school,
      person,
      scope: 'account:read courses:read',
    })

    const page = await accountPage(await signIn(server, person))
    expect(page).toContain(person.email)
    const rows = mine(page)
    expect(rows.map((r) => r.name).sort()).toEqual(['Gradebook Sync', 'School Timetable'])
    const byName = new Map(rows.map((r) => [r.name, r]))
    expect(byName.get('Gradebook Sync')).toMatchObject({
      kind: 'self-registered tool',
      scopes: ['openid', 'account:read'],
      granted: '2030-01-02 03:05 UTC',
      lastUsed: '2030-01-02 03:05 UTC',
      clientId: tool.clientId,
      userId: person.user.id,
      person: undefined,
    })
    expect(byName.get('School Timetable')).toMatchObject({
      kind: 'integration',
      scopes: ['account:read', 'courses:read'],
      granted: '2030-01-02 03:10 UTC',
      clientId: school.clientId,
    })
    // A lecturer sees only their own.
    expect(page).not.toMatch(/All connected apps at/)
  })

  it('shows "never" as last used for a grant whose code was never exchanged', async () => {
    const person = await createPerson(server, 'student')
    const tool = await registerTestClient(server, { client_name: 'Unfinished Tool' })
    const flow = await runAuthorization(server, tool, person, {
      extra: { scope: 'account:read' },
    })
    expect(flow.code).toBeTruthy()
    const rows = mine(await accountPage(flow.browser))
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({ name: 'Unfinished Tool', lastUsed: 'never' })
  })

  it('shows one row per tool however many times it was authorized', async () => {
    const person = await createPerson(server, 'student')
    const tool = await registerTestClient(server, { client_name: 'Twice Tool' })
    await issueThroughConsent(server, { client: tool, person, scope: 'account:read' })
    await issueThroughConsent(server, { client: tool, person, scope: 'openid' })
    const rows = mine(await accountPage(await signIn(server, person)))
    expect(rows).toHaveLength(1)
    expect(rows[0]?.scopes.sort()).toEqual(['account:read', 'openid'])
  })

  it('escapes a hostile tool name', async () => {
    const person = await createPerson(server, 'student')
    const tool = await registerTestClient(server, { client_name: '<img src=x onerror=alert(1)>' })
    await issueThroughConsent(server, { client: tool, person, scope: 'account:read' })
    const page = await accountPage(await signIn(server, person))
    expect(page).not.toContain('<img src=x')
    expect(mine(page)[0]?.name).toBe('<img src=x onerror=alert(1)>')
  })

  it('sends a signed-out visitor to the sign-in page', async () => {
    const response = await server.fetch('/account', { redirect: 'manual' })
    expect(response.status).toBe(303)
    expect(response.headers.get('location')).toBe('/login')
  })
})

describe('revoking a connected app kills every token of that grant at once', () => {
  it('ends the access and refresh tokens of every grant of that tool, and no other tool’s', async () => {
    const person = await createPerson(server, 'student')
    const tool = await registerTestClient(server, { client_name: 'Revocable Tool' })
    const keeper = await registerTestClient(server, { client_name: 'Kept Tool' })
    const first = await issueThroughConsent(server, { client: tool, person, scope: 'account:read' })
    const second = await issueThroughConsent(server, {
      client: tool,
      person,
      scope: 'account:read',
    })
    const kept = await issueThroughConsent(server, {
      client: keeper,
      person,
      scope: 'account:read',
    })
    for (const issued of [first, second, kept])
      expect(await apiStatus(issued.accessToken)).toBe(200)

    const browser = await signIn(server, person)
    const page = await accountPage(browser)
    const row = mine(page).find((r) => r.name === 'Revocable Tool')
    expect(row).toBeDefined()
    const response = await revokeForm(browser, {
      csrf: row?.csrf ?? '',
      client_id: row?.clientId ?? '',
      user_id: row?.userId ?? '',
    })
    expect(response.status).toBe(303)
    expect(response.headers.get('location')).toBe('/account?revoked=1')

    for (const issued of [first, second]) {
      expect(await apiStatus(issued.accessToken)).toBe(401)
      const refreshed = await postToken(server, refreshFields(tool, issued.refreshToken))
      expect(refreshed.status).toBe(400)
      expect((await readJson(refreshed)).error).toBe('invalid_grant')
    }
    expect(await apiStatus(kept.accessToken)).toBe(200)

    const after = await (await browser.request('/account?revoked=1')).text()
    expect(after).toMatch(/role="status"[^>]*>Access revoked/)
    expect(mine(after).map((r) => r.name)).toEqual(['Kept Tool'])
  })

  it('works without user_id: it means the person’s own grant', async () => {
    const person = await createPerson(server, 'student')
    const issued = await issueThroughConsent(server, { person, scope: 'account:read' })
    const browser = await signIn(server, person)
    const csrf = accountCsrf(await accountPage(browser))
    const response = await revokeForm(browser, { csrf, client_id: issued.client.clientId })
    expect(response.status).toBe(303)
    expect(await apiStatus(issued.accessToken)).toBe(401)
  })
})

describe('the revoke form is protected against cross-site requests', () => {
  it('refuses a missing CSRF token with 403 and revokes nothing', async () => {
    const person = await createPerson(server, 'student')
    const issued = await issueThroughConsent(server, { person, scope: 'account:read' })
    const browser = await signIn(server, person)
    const response = await revokeForm(browser, {
      client_id: issued.client.clientId,
      user_id: person.user.id,
    })
    expect(response.status).toBe(403)
    expect(response.headers.get('content-type')).toMatch(/^text\/html/)
    expect(await apiStatus(issued.accessToken)).toBe(200)
  })

  it('refuses a wrong CSRF token, and one from another session', async () => {
    const person = await createPerson(server, 'student')
    const issued = await issueThroughConsent(server, { person, scope: 'account:read' })
    const otherSession = await signIn(server, person)
    const foreignCsrf = accountCsrf(await accountPage(otherSession))
    const browser = await signIn(server, person)
    for (const csrf of ['x'.repeat(43), foreignCsrf]) {
      const response = await revokeForm(browser, {
        csrf,
        client_id: issued.client.clientId,
        user_id: person.user.id,
      })
      expect(response.status).toBe(403)
    }
    expect(await apiStatus(issued.accessToken)).toBe(200)
  })

  it('sends a signed-out POST to the sign-in page, revoking nothing', async () => {
    const person = await createPerson(server, 'student')
    const issued = await issueThroughConsent(server, { person, scope: 'account:read' })
    const response = await server.fetch('/account/connections/revoke', {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        client_id: issued.client.clientId,
        user_id: person.user.id,
      }).toString(),
    })
    expect(response.status).toBe(303)
    expect(response.headers.get('location')).toBe('/login')
    expect(await apiStatus(issued.accessToken)).toBe(200)
  })

  it('is not open to other origins (no CORS on the pages)', async () => {
    const response = await server.fetch('/account/connections/revoke', {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    })
    expect(response.headers.get('access-control-allow-origin')).toBeNull()
  })
})

describe('only owners and admins see and revoke other people’s connected apps', () => {
  for (const role of ['lecturer', 'editor', 'teaching_assistant', 'student'] as const) {
    it(`a ${role} cannot revoke another person’s grant (403)`, async () => {
      const victim = await createPerson(server, 'student')
      const issued = await issueThroughConsent(server, { person: victim, scope: 'account:read' })
      const actor = await createPerson(server, role)
      const browser = await signIn(server, actor)
      const page = await accountPage(browser)
      expect(page).not.toMatch(/All connected apps at/)
      expect(page).not.toContain(victim.email)
      const own = await issueThroughConsent(server, { person: actor, scope: 'account:read' })
      const csrf = accountCsrf(await accountPage(browser))
      const response = await revokeForm(browser, {
        csrf,
        client_id: issued.client.clientId,
        user_id: victim.user.id,
      })
      expect(response.status).toBe(403)
      expect(await apiStatus(issued.accessToken)).toBe(200)
      expect(await apiStatus(own.accessToken)).toBe(200)
    })
  }

  for (const role of ['owner', 'admin'] as const) {
    it(`an ${role} sees everyone’s connections and can revoke them`, async () => {
      const victim = await createPerson(server, 'student')
      const tool = await registerTestClient(server, { client_name: `Watched by ${role}` })
      const issued = await issueThroughConsent(server, {
        client: tool,
        person: victim,
        scope: 'account:read',
      })
      const manager = await createPerson(server, role)
      const own = await issueThroughConsent(server, {
        client: tool,
        person: manager,
        scope: 'account:read',
      })
      const browser = await signIn(server, manager)
      const page = await accountPage(browser)
      expect(mine(page).map((r) => r.userId)).toEqual([manager.user.id])
      const all = everyone(page)
      const row = all.find((r) => r.userId === victim.user.id && r.clientId === tool.clientId)
      expect(row).toMatchObject({
        name: `Watched by ${role}`,
        person: `${victim.user.name} <${victim.email}>`,
        scopes: ['account:read'],
      })
      expect(all.some((r) => r.userId === manager.user.id)).toBe(true)

      const response = await revokeForm(browser, {
        csrf: row?.csrf ?? '',
        client_id: row?.clientId ?? '',
        user_id: row?.userId ?? '',
      })
      expect(response.status).toBe(303)
      expect(await apiStatus(issued.accessToken)).toBe(401)
      // Only that person's grant of the tool ended, not the manager's own.
      expect(await apiStatus(own.accessToken)).toBe(200)
      const after = everyone(await accountPage(browser))
      expect(after.some((r) => r.userId === victim.user.id && r.clientId === tool.clientId)).toBe(
        false,
      )
    })
  }
})
