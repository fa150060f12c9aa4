import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Browser, formField } from '../support/flow.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { type Issued, issue } from '../support/token-lifecycle.js'
import {
  contentType,
  expectCleanLogs,
  expectNoSecret,
  FUZZ,
  formBody,
  formFields,
  headerText,
  nasty,
  send,
} from './fuzz-support.js'
import { expectHtmlPage, expectOAuthError, expectProblem, snapshot } from './support.js'

/**
 * Property-based fuzzing (fast-check, fixed seed) of the pages and the API: the sign-in and
 * consent forms, the connected-apps form, PATCH /api/v1/account, and the Authorization and
 * Cookie headers everywhere. Invariants: no 5xx; HTML on pages, RFC 9457 problem+json on
 * /api/v1, RFC 6749 §5.2 JSON at userinfo; a refused request changes nothing; the password,
 * the session and the tokens never appear in a response or a log line.
 */

let server: TestServer
let issued: Issued
let browser: Browser
let loginCsrf: string
let sessionToken: string
let secrets: string[]

beforeAll(async () => {
  server = await startTestServer()
  issued = await issue(server, { scope: 'openid profile email account:read account:write' })
  browser = new Browser(server)
  const page = await (await browser.request('/login')).text()
  loginCsrf = formField(page, 'csrf') ?? ''
  const signIn = await browser.post('/login', {
    csrf: loginCsrf,
    email: issued.person.email,
    password: issued.person.password,
  })
  expect(signIn.status).toBe(303)
  sessionToken = browser.cookies.get('portico_session') ?? ''
  secrets = [issued.person.password, issued.accessToken, issued.refreshToken, sessionToken]
})
afterAll(async () => {
  await server?.close()
})

describe('fuzz: POST /login (HTML; the password is never echoed)', () => {
  it('answers a redirect after a real sign-in, else an HTML page, and adds no session when refused', async () => {
    const values = nasty([loginCsrf, issued.person.email, issued.person.password, 'par_x'])
    await fc.assert(
      fc.asyncProperty(
        formFields(['csrf', 'email', 'password', 'request'], values),
        contentType('application/x-www-form-urlencoded'),
        async (fields, type) => {
          const before = await snapshot(server, ['sessions', 'users'])
          const headers = {
            cookie: browser.cookies.has('portico_browser')
              ? `portico_browser=${browser.cookies.get('portico_browser')}`
              : '',
          }
          const response = await send(server, '/login', 'POST', type, formBody(fields), headers)
          const after = await snapshot(server, ['sessions', 'users'])
          expect(after.users).toEqual(before.users)
          if (response.status === 303) {
            expect(after.sessions.length).toBe(before.sessions.length + 1)
            return
          }
          const page = await expectHtmlPage(response)
          // The page may echo the e-mail field as typed; never the password.
          const typedEmails = fields.filter(([k]) => k === 'email').map(([, v]) => v)
          if (!typedEmails.some((e) => e.includes(issued.person.password))) {
            expectNoSecret(page, [issued.person.password], 'sign-in page')
          }
          expectNoSecret(page, [sessionToken, issued.accessToken], 'sign-in page')
          expect(after.sessions).toEqual(before.sessions)
        },
      ),
      { ...FUZZ, numRuns: 60 },
    )
  })
})

describe('fuzz: POST /oauth/authorize/decision and /account/connections/revoke (CSRF-protected forms)', () => {
  it('a forged decision is an HTML page that issues nothing', async () => {
    await fc.assert(
      fc.asyncProperty(
        formFields(['request', 'csrf', 'decision'], nasty(['approve', 'deny', 'par_x'])),
        async (fields) => {
          const before = await snapshot(server)
          const response = await send(
            server,
            '/oauth/authorize/decision',
            'POST',
            'application/x-www-form-urlencoded',
            formBody(fields),
            { cookie: `portico_session=${sessionToken}` },
          )
          await expectHtmlPage(response)
          expect(await snapshot(server)).toEqual(before)
        },
      ),
      { ...FUZZ, numRuns: 60 },
    )
  })

  it('a revoke form without the right CSRF token is refused and revokes nothing', async () => {
    await fc.assert(
      fc.asyncProperty(
        formFields(
          ['csrf', 'client_id', 'user_id'],
          nasty([issued.client.clientId, issued.person.user.id]),
        ),
        async (fields) => {
          const before = await snapshot(server)
          const response = await send(
            server,
            '/account/connections/revoke',
            'POST',
            'application/x-www-form-urlencoded',
            formBody(fields),
            { cookie: `portico_session=${sessionToken}` },
          )
          await expectHtmlPage(response, 403)
          expect(await snapshot(server)).toEqual(before)
        },
      ),
      { ...FUZZ, numRuns: 60 },
    )
  })
})

describe('fuzz: PATCH /api/v1/account (RFC 7396 merge, RFC 9457 errors)', () => {
  const keys = ['name', 'avatar_url', 'locale', 'timezone', 'bio', 'notification_preferences']
  const value = fc.oneof(
    nasty(['Ada', 'https://img.example/a.png', 'en', 'pt-BR', 'Europe/Berlin', 'UTC']),
    fc.constant(null),
    fc.jsonValue({ maxDepth: 2 }),
    fc.dictionary(
      fc.oneof(fc.constantFrom('new_order', 'weekly_summary'), fc.string()),
      fc.oneof(fc.boolean(), nasty()),
    ),
  )
  const body = fc.oneof(
    {
      weight: 5,
      arbitrary: fc
        .dictionary(fc.oneof(fc.constantFrom(...keys), fc.string()), value, { maxKeys: 4 })
        .map((o) => JSON.stringify(o)),
    },
    { weight: 1, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: fc.string({ maxLength: 60 }) },
  )

  it('answers the account or a problem; a refused PATCH changes nothing', async () => {
    await fc.assert(
      fc.asyncProperty(
        body,
        contentType('application/json'),
        fc.option(fc.oneof(headerText, fc.constant('*')), { nil: undefined }),
        async (text, type, ifMatch) => {
          const before = await snapshot(server, ['users'])
          const headers: Record<string, string> = { authorization: `Bearer ${issued.accessToken}` }
          if (ifMatch !== undefined) headers['if-match'] = ifMatch
          const response = await send(server, '/api/v1/account', 'PATCH', type, text, headers)
          if (response.status === 200) {
            expect(((await response.json()) as { object: string }).object).toBe('account')
            return
          }
          const raw = await response.clone().text()
          await expectProblem(response)
          expectNoSecret(raw, secrets, 'account problem')
          expect(await snapshot(server, ['users'])).toEqual(before)
        },
      ),
      FUZZ,
    )
  })
})

describe('fuzz: the Authorization header (RFC 6750 §2.1, §3.1)', () => {
  const authorization = fc.oneof(
    headerText,
    headerText.map((t) => `Bearer ${t}`),
    fc.constantFrom('Bearer', 'Bearer ', 'bearer', 'Basic', 'Basic Og==', 'Bearer ===='),
    fc.string({ maxLength: 43 }).map((t) => `Bearer pat_${t}`),
  )

  it('at userinfo: 200, or 401/403 OAuth JSON with a Bearer challenge', async () => {
    await fc.assert(
      fc.asyncProperty(authorization, fc.constantFrom('GET', 'POST'), async (value, method) => {
        const response = await server.fetch('/api/oauth/userinfo', {
          method,
          headers: { authorization: value },
        })
        if (response.status === 200) return
        expect([401, 403]).toContain(response.status)
        expect(response.headers.get('www-authenticate')).toMatch(/^Bearer /)
        await expectOAuthError(response)
      }),
      FUZZ,
    )
  })

  it('at /api/v1 and /api/v1/account: 200, or a 401/403 problem — never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        authorization,
        fc.constantFrom('/api/v1', '/api/v1/account'),
        async (value, path) => {
          const response = await server.fetch(path, { headers: { authorization: value } })
          if (response.status === 200) return
          expect([401, 403]).toContain(response.status)
          await expectProblem(response)
        },
      ),
      FUZZ,
    )
  })
})

describe('fuzz: the Cookie header on the pages', () => {
  const cookieHeader = fc.oneof(
    headerText,
    fc
      .tuple(
        fc.constantFrom('portico_session', 'portico_browser', '__Host-portico_session'),
        headerText,
      )
      .map(([k, v]) => `${k}=${v}`),
    fc.constantFrom(
      `portico_session=${'A'.repeat(4000)}`,
      'portico_session=pss_%00; portico_browser=pbr_%',
      'portico_session="pss_x"; portico_session=pss_y',
      ';;;=;=',
    ),
  )

  it('never signs anyone in, never fails: pages answer HTML or a redirect', async () => {
    await fc.assert(
      fc.asyncProperty(
        cookieHeader,
        fc.constantFrom('/login', '/account', '/', '/oauth/authorize/continue?request=par_x'),
        async (cookie, path) => {
          const response = await server.fetch(path, { headers: { cookie }, redirect: 'manual' })
          expect(response.status).toBeLessThan(500)
          if (path === '/account') {
            expect(response.status).toBe(303)
            expect(response.headers.get('location')).toBe('/login')
          }
          if (response.status !== 303) await expectHtmlPage(response)
        },
      ),
      FUZZ,
    )
  })
})

describe('after fuzzing the pages and the API', () => {
  it('logged no unexpected error and no secret', () => {
    expectCleanLogs(server, secrets)
  })
})
