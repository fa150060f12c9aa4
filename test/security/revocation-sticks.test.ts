import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createIntegrationClient,
  decide,
  locationOf,
  openConsent,
  signedInBrowser,
} from '../http/authorize/support.js'
import { runCli } from '../support/cli.js'
import {
  authorizePath,
  type Browser,
  createPerson,
  createPkce,
  type TestClient,
  type TestPerson,
} from '../support/flow.js'
import { postToken } from '../support/grants.js'
import { readJson } from '../support/http.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { ACCOUNT, callApi, databaseUrlOf, revoke } from '../support/token-lifecycle.js'

/**
 * Issue 16, "A revoked app stays revoked" and "One rule for who may revoke whose apps".
 * A registered integration remembers a person's consent; whichever way the app is revoked
 * (the connected-apps page, RFC 7009 revocation of its refresh token, `portico grants
 * revoke`, `portico clients delete`), the remembered consent goes with it: the next request
 * shows the consent page again, and `prompt=none` answers an error, never a fresh code.
 */

const SCOPE = 'openid profile account:read'
let server: TestServer
let cliEnv: Record<string, string>

beforeAll(async () => {
  server = await startTestServer()
  cliEnv = {
    DATABASE_URL: databaseUrlOf(server),
    PORTICO_KEY_ENCRYPTION_SECRET: 'test-secret-test-secret-test-secret-0123',
    PORTICO_ISSUER: server.issuer,
  }
})
afterAll(async () => {
  await server?.close()
})

interface Approved {
  readonly integration: TestClient
  readonly person: TestPerson
  readonly browser: Browser
  readonly accessToken: string
  readonly refreshToken: string
  readonly code: string
  readonly verifier: string
}

/** A person approves an integration once on the consent page and the app redeems the code. */
async function approvedIntegration(person?: TestPerson): Promise<Approved> {
  const who = person ?? (await createPerson(server, 'student'))
  const integration = await createIntegrationClient(server)
  const browser = await signedInBrowser(server, who)
  const pkce = createPkce()
  const form = await openConsent(browser, integration, who, { scope: SCOPE }, pkce)
  const code = new URL(locationOf(await decide(browser, form))).searchParams.get('code') ?? ''
  const response = await postToken(server, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: integration.redirectUri,
    client_id: integration.clientId,
    code_verifier: pkce.verifier,
  })
  const body = await readJson(response)
  expect(response.status).toBe(200)
  return {
    integration,
    person: who,
    browser,
    accessToken: body.access_token,
    refreshToken: body.refresh_token,
    code,
    verifier: pkce.verifier,
  }
}

/** An authorization request of the app in the person's (signed-in) browser. */
function authorizeAgain(app: Approved, extra: Record<string, string> = {}): Promise<Response> {
  return app.browser.request(
    authorizePath(app.integration, createPkce(), { scope: SCOPE, ...extra }),
  )
}

/** The remembered consent works before the revocation: a silent request gets a code. */
async function expectRemembered(app: Approved): Promise<void> {
  const silent = await authorizeAgain(app, { prompt: 'none' })
  expect(silent.status).toBe(303)
  expect(new URL(locationOf(silent)).searchParams.get('code')).toMatch(/^pac_/)
}

/** After the revocation: the consent page again, and `prompt=none` refused without a code. */
async function expectAskedAgain(app: Approved): Promise<void> {
  const again = await authorizeAgain(app)
  expect(again.status).toBe(200)
  expect(await again.text()).toContain('action="/oauth/authorize/decision"')
  const silent = await authorizeAgain(app, { prompt: 'none' })
  expect(silent.status).toBe(303)
  const location = new URL(locationOf(silent))
  expect(location.searchParams.get('code')).toBeNull()
  expect(['consent_required', 'login_required']).toContain(location.searchParams.get('error'))
  expect(await consentRows(app)).toBe(0)
}

async function consentRows(app: Approved): Promise<number> {
  const rows = await server.deps.database.db
    .selectFrom('consents')
    .select('client_id')
    .where('client_id', '=', app.integration.clientId)
    .where('user_id', '=', app.person.user.id)
    .execute()
  return rows.length
}

/** The revoke button's form on /account for a (client, person) row; its CSRF token. */
async function accountRevokeCsrf(browser: Browser): Promise<string> {
  const page = await (await browser.request('/account')).text()
  const form = page.slice(page.indexOf('action="/account/connections/revoke"'))
  return /name="csrf" value="([^"]*)"/.exec(form)?.[1] ?? ''
}

function revokeOnAccountPage(
  browser: Browser,
  csrf: string,
  clientId: string,
  userId: string,
): Promise<Response> {
  return browser.post('/account/connections/revoke', { csrf, client_id: clientId, user_id: userId })
}

describe('a revoked app stays revoked: its remembered consent is forgotten', () => {
  it('revoked on /account, an integration cannot get a silent code (prompt=none) afterwards', async () => {
    const app = await approvedIntegration()
    await expectRemembered(app)
    const csrf = await accountRevokeCsrf(app.browser)
    const response = await revokeOnAccountPage(
      app.browser,
      csrf,
      app.integration.clientId,
      app.person.user.id,
    )
    expect(response.status).toBe(303)
    expect((await callApi(server, ACCOUNT, { token: app.accessToken })).status).toBe(401)
    await expectAskedAgain(app)
  })

  it('revoked through POST /api/oauth/revoke (its refresh token), the app is asked again', async () => {
    const app = await approvedIntegration()
    await expectRemembered(app)
    const response = await revoke(
      server,
      { clientId: app.integration.clientId },
      app.refreshToken,
      { token_type_hint: 'refresh_token' },
    )
    expect(response.status).toBe(200)
    expect((await callApi(server, ACCOUNT, { token: app.accessToken })).status).toBe(401)
    await expectAskedAgain(app)
  })

  it('revoked by an operator with `portico grants revoke`, the app is asked again', async () => {
    const app = await approvedIntegration()
    await expectRemembered(app)
    const result = await runCli(
      ['grants', 'revoke', '--client', app.integration.clientId, '--user', app.person.email],
      cliEnv,
    )
    expect(result.code, result.stderr).toBe(0)
    expect((await callApi(server, ACCOUNT, { token: app.accessToken })).status).toBe(401)
    await expectAskedAgain(app)
  })

  it('deleted with `portico clients delete`, the client gets no code and no consent survives it', async () => {
    const app = await approvedIntegration()
    await expectRemembered(app)
    const result = await runCli(['clients', 'delete', app.integration.clientId], cliEnv)
    expect(result.code, result.stderr).toBe(0)
    expect((await callApi(server, ACCOUNT, { token: app.accessToken })).status).toBe(401)
    const silent = await authorizeAgain(app, { prompt: 'none' })
    expect(silent.status).toBe(400)
    expect(silent.headers.get('location')).toBeNull()
    expect(await consentRows(app)).toBe(0)
  })

  it('a replayed authorization code revokes its grant and the consent with it', async () => {
    const app = await approvedIntegration()
    await expectRemembered(app)
    const replay = await postToken(server, {
      grant_type: 'authorization_code',
      code: app.code,
      redirect_uri: app.integration.redirectUri,
      client_id: app.integration.clientId,
      code_verifier: app.verifier,
    })
    expect(replay.status).toBe(400)
    expect((await callApi(server, ACCOUNT, { token: app.accessToken })).status).toBe(401)
    await expectAskedAgain(app)
  })
})

describe('one rule for who may revoke whose apps: an admin never touches an owner', () => {
  it('an admin cannot revoke the owner’s connected apps on /account (403), as in the members API', async () => {
    const owner = await createPerson(server, 'owner')
    const ownerApp = await approvedIntegration(owner)
    const admin = await createPerson(server, 'admin')
    // The members API's answer to this admin touching this owner ...
    const adminToken = await tokenFor(admin, 'members:read members:write')
    const patch = await callApi(server, `/api/v1/members/${owner.user.id}`, {
      token: adminToken,
      init: {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ status: 'suspended' }),
      },
    })
    expect(patch.status).toBe(403)
    const rule = (await readJson(patch)).detail as string
    expect(rule).toMatch(/^an admin may not manage .*owner/)

    // ... is the page's: no revoke button on the owner's row, the same reason instead ...
    const adminBrowser = await signedInAndConnected(admin, await signedInBrowser(server, admin))
    const page = await (await adminBrowser.request('/account')).text()
    const ownerRow = page
      .split('<tr>')
      .find((row) => row.includes(ownerApp.integration.clientId) || row.includes(owner.email))
    expect(ownerRow).toBeDefined()
    expect(ownerRow).not.toContain('action="/account/connections/revoke"')
    expect(ownerRow).toContain(rule)
    // ... and a forged form is refused with it: the owner's tokens and consent stay.
    const response = await revokeOnAccountPage(
      adminBrowser,
      await accountRevokeCsrf(adminBrowser),
      ownerApp.integration.clientId,
      owner.user.id,
    )
    expect(response.status).toBe(403)
    expect(await response.text()).toContain(rule)
    expect((await callApi(server, ACCOUNT, { token: ownerApp.accessToken })).status).toBe(200)
    expect(await consentRows(ownerApp)).toBe(1)
  })

  it('an owner may revoke another owner’s and an admin may revoke another admin’s apps', async () => {
    for (const role of ['owner', 'admin'] as const) {
      const victim = await createPerson(server, role)
      const app = await approvedIntegration(victim)
      const manager = await createPerson(server, role)
      const browser = await signedInBrowser(server, manager)
      const csrf = await accountRevokeCsrf(await signedInAndConnected(manager, browser))
      const response = await revokeOnAccountPage(
        browser,
        csrf,
        app.integration.clientId,
        victim.user.id,
      )
      expect(response.status).toBe(303)
      expect((await callApi(server, ACCOUNT, { token: app.accessToken })).status).toBe(401)
    }
  })
})

/** Gives the signed-in manager an app of their own, so /account has a revoke form (CSRF). */
async function signedInAndConnected(person: TestPerson, browser: Browser): Promise<Browser> {
  const integration = await createIntegrationClient(server)
  const form = await openConsent(browser, integration, person, { scope: 'openid' })
  expect((await decide(browser, form)).status).toBe(303)
  return browser
}

/** An access token of `person` for `scope`, through a consent this person gives. */
async function tokenFor(person: TestPerson, scope: string): Promise<string> {
  const integration = await createIntegrationClient(server)
  const browser = await signedInBrowser(server, person)
  const pkce = createPkce()
  const form = await openConsent(browser, integration, person, { scope }, pkce)
  const code = new URL(locationOf(await decide(browser, form))).searchParams.get('code') ?? ''
  const response = await postToken(server, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: integration.redirectUri,
    client_id: integration.clientId,
    code_verifier: pkce.verifier,
  })
  return (await readJson(response)).access_token as string
}
