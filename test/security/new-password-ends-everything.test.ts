import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConfigError, parseConfig } from '../../src/config.js'
import { setAccountPassword } from '../../src/people/account-admin.js'
import { digest } from '../../src/platform/crypto.js'
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
  Browser,
  createPerson,
  createPkce,
  formField,
  registerTestClient,
  runAuthorization,
} from '../support/flow.js'
import {
  codeFields,
  createTestClock,
  mintCode,
  postToken,
  refreshFields,
} from '../support/grants.js'
import { readJson } from '../support/http.js'
import {
  apiStatus,
  exchangeCode,
  type Instances,
  refresh,
  startInstances,
} from '../support/instances.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { needsPostgres } from '../support/skips.js'
import {
  ACCOUNT,
  callApi,
  databaseUrlOf,
  issue,
  issueThroughConsent,
} from '../support/token-lifecycle.js'

/**
 * Issue 16, "A new password ends everything the old one started": `portico users
 * set-password` ends every sign-in session and every grant of the person. Someone who stole
 * the old password (or the tokens it let them mint) keeps nothing: access tokens are refused
 * at the next call (on SQLite past the in-memory read cache, as the command is another
 * process), refresh tokens no longer rotate, codes not yet redeemed are refused. And a grant
 * has an absolute lifetime (PORTICO_REFRESH_TOKEN_ABSOLUTE_TTL, 90 days by default): refreshed
 * however often, it cannot slide forward for ever.
 */

const DAY = 86_400_000
const SECRET = 'test-secret-test-secret-test-secret-0123'

describe('a new password ends everything the old one started', () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer()
  })
  afterAll(async () => {
    await server?.close()
  })

  const setPassword = (email: string, password: string) =>
    runCli(
      ['users', 'set-password', '--email', email, '--password-stdin'],
      {
        DATABASE_URL: databaseUrlOf(server),
        PORTICO_KEY_ENCRYPTION_SECRET: SECRET,
        PORTICO_ISSUER: server.issuer,
      },
      password,
    )

  it('a sign-in with the old password whose hash was read before the change keeps no session', async () => {
    const victim = await createPerson(server)
    const users = server.deps.users
    const original = users.findCredentials
    let changed = false
    // The change lands between the sign-in reading the hash and inserting its session.
    users.findCredentials = async (email) => {
      const found = await original.call(users, email)
      if (!changed && email === victim.email) {
        changed = true
        await setAccountPassword(server.deps, victim.email, 'an entirely new passphrase 42')
      }
      return found
    }
    const thief = new Browser(server)
    try {
      const page = await (await thief.request('/login')).text()
      const response = await thief.post('/login', {
        csrf: formField(page, 'csrf') ?? '',
        email: victim.email,
        password: victim.password,
      })
      expect(changed).toBe(true)
      expect(response.status).toBe(401)
      expect(response.headers.get('set-cookie') ?? '').not.toMatch(/session/i)
      await response.arrayBuffer()
    } finally {
      users.findCredentials = original
    }
    const sessions = await server.deps.database.db
      .selectFrom('sessions')
      .select('id_digest')
      .where('user_id', '=', victim.user.id)
      .execute()
    expect(sessions).toHaveLength(0)
    expect((await thief.request('/account')).status).not.toBe(200)
  })

  it('after `portico users set-password` the thief’s tokens, refresh tokens, codes and sessions are all dead', async () => {
    const victim = await createPerson(server, 'editor')
    // What the thief made with the old password: tokens of two tools, one through the
    // consent pages, a code not yet redeemed, a signed-in browser, a remembered consent.
    const first = await issue(server, { person: victim, scope: 'openid account:read' })
    const second = await issueThroughConsent(server, { person: victim, scope: 'account:read' })
    const pending = await mintCode(server, await registerTestClient(server), victim.user, {
      scope: 'openid account:read',
    })
    const browser = await signedInBrowser(server, victim)
    const integration = await createIntegrationClient(server)
    const form = await openConsent(browser, integration, victim, { scope: 'openid' })
    expect((await decide(browser, form)).status).toBe(303)
    // Used once, so on SQLite the live tokens sit in the read cache.
    for (const token of [first.accessToken, second.accessToken])
      expect((await callApi(server, ACCOUNT, { token })).status).toBe(200)
    // Someone else's tokens are not touched.
    const bystander = await issue(server, { scope: 'account:read' })

    const result = await setPassword(victim.email, 'a brand new passphrase')
    expect(result.code, result.stderr).toBe(0)

    for (const token of [first.accessToken, second.accessToken])
      expect((await callApi(server, ACCOUNT, { token })).status).toBe(401)
    for (const issued of [first, second]) {
      const refreshed = await postToken(server, refreshFields(issued.client, issued.refreshToken))
      expect(refreshed.status).toBe(400)
      expect((await readJson(refreshed)).error).toBe('invalid_grant')
    }
    const redeemed = await postToken(server, codeFields(pending))
    expect(redeemed.status).toBe(400)
    const body = await readJson(redeemed)
    expect(body.error).toBe('invalid_grant')
    expect(body.id_token).toBeUndefined()
    // The browser session is gone, and with it any silent authorization.
    const account = await browser.request('/account')
    expect(account.status).toBe(303)
    expect(locationOf(account)).toMatch(/^\/login/)
    const silent = await browser.request(
      authorizePath(integration, createPkce(), { scope: 'openid', prompt: 'none' }),
    )
    expect(new URL(locationOf(silent)).searchParams.get('code')).toBeNull()
    expect((await callApi(server, ACCOUNT, { token: bystander.accessToken })).status).toBe(200)

    // The new password signs in and starts afresh.
    const fresh = await issueThroughConsent(server, {
      person: { ...victim, password: 'a brand new passphrase' },
      scope: 'account:read',
    })
    expect((await callApi(server, ACCOUNT, { token: fresh.accessToken })).status).toBe(200)
  })
})

describe('a grant cannot slide forward for ever: refresh tokens have an absolute lifetime', () => {
  it('is 90 days by default, configurable with PORTICO_REFRESH_TOKEN_ABSOLUTE_TTL', () => {
    expect(parseConfig({}).lifetimes.grantMaximum).toBe(90 * 86_400)
    expect(parseConfig({ PORTICO_REFRESH_TOKEN_ABSOLUTE_TTL: '3600' }).lifetimes.grantMaximum).toBe(
      3600,
    )
    for (const bad of ['0', '-1', 'ninety', '1.5'])
      expect(() => parseConfig({ PORTICO_REFRESH_TOKEN_ABSOLUTE_TTL: bad })).toThrow(ConfigError)
  })

  it('a refresh token rotated every 20 days stops at 90 days from the approval', async () => {
    const clock = createTestClock()
    const server = await startTestServer({ clock })
    try {
      const issued = await issue(server, { scope: 'account:read' })
      let refreshToken = issued.refreshToken
      // 20, 40, 60, 80 days: each rotation inside the 30-day lifetime succeeds.
      for (let i = 0; i < 4; i++) {
        clock.advance(20 * DAY)
        const response = await postToken(server, refreshFields(issued.client, refreshToken))
        expect(response.status, `refresh ${i + 1}`).toBe(200)
        refreshToken = (await readJson(response)).refresh_token as string
      }
      // 80 days: the token just issued would live to 110 days, but the grant ends at 90.
      const stored = await server.deps.grants.findRefreshGrant(digest(refreshToken))
      expect(stored?.token.expires_at).toBe((stored?.grant.created_at ?? 0) + 90 * DAY)
      clock.advance(10 * DAY - 1)
      const lastMoment = await postToken(server, refreshFields(issued.client, refreshToken))
      expect(lastMoment.status).toBe(200)
      refreshToken = (await readJson(lastMoment)).refresh_token as string
      clock.advance(1)
      const after = await postToken(server, refreshFields(issued.client, refreshToken))
      expect(after.status).toBe(400)
      expect((await readJson(after)).error).toBe('invalid_grant')
    } finally {
      await server.close()
    }
  })

  it('a shorter PORTICO_REFRESH_TOKEN_ABSOLUTE_TTL ends grants sooner, whatever the refresh lifetime', async () => {
    const clock = createTestClock()
    const server = await startTestServer({
      clock,
      env: { PORTICO_REFRESH_TOKEN_ABSOLUTE_TTL: '3600' },
    })
    try {
      const issued = await issue(server, { scope: 'account:read' })
      clock.advance(30 * 60_000)
      const inside = await postToken(server, refreshFields(issued.client, issued.refreshToken))
      expect(inside.status).toBe(200)
      const next = (await readJson(inside)).refresh_token as string
      clock.advance(30 * 60_000)
      const outside = await postToken(server, refreshFields(issued.client, next))
      expect(outside.status).toBe(400)
      expect((await readJson(outside)).error).toBe('invalid_grant')
    } finally {
      await server.close()
    }
  })
})

describe.skipIf(
  needsPostgres('a new password on several instances (test/security/new-password-ends-everything)'),
)('a new password ends everything on every instance of one PostgreSQL', () => {
  let cluster: Instances
  beforeAll(async () => {
    cluster = await startInstances(2)
  })
  afterAll(async () => {
    await cluster?.stop()
  })

  it('tokens used on both instances are refused on both at the next call, and do not refresh', async () => {
    const victim = await cluster.person('editor')
    const client = await registerTestClient(cluster.at(0))
    const flow = await runAuthorization(cluster.at(0), client, victim, {
      extra: { scope: 'account:read' },
    })
    const response = await exchangeCode(cluster.at(0), client, flow)
    expect(response.status).toBe(200)
    const tokens = await readJson(response)
    for (const at of [0, 1]) expect(await apiStatus(cluster.at(at), tokens.access_token)).toBe(200)

    const result = await runCli(
      ['users', 'set-password', '--email', victim.email, '--password-stdin'],
      cluster.env,
      'a brand new passphrase',
    )
    expect(result.code, result.stderr).toBe(0)

    for (const at of [0, 1]) {
      expect(await apiStatus(cluster.at(at), tokens.access_token)).toBe(401)
      const refreshed = await refresh(cluster.at(at), client, tokens.refresh_token)
      expect(refreshed.status).toBe(400)
    }
  })
})
