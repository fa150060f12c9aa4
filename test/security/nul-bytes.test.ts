import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Browser, createPkce, formField, runAuthorization } from '../support/flow.js'
import { codeFields, mintCode, postToken, refreshFields } from '../support/grants.js'
import { formInit, jsonInit } from '../support/http.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { callApi, type Issued, issue } from '../support/token-lifecycle.js'
import { expectHtmlPage, expectOAuthError, expectProblem, snapshot } from './support.js'

/**
 * A NUL character (U+0000, sent as %00) in any parameter. PostgreSQL refuses NUL in text
 * values, so every such value that reached a query used to fail the whole request with a
 * 500 there (while SQLite answered normally). Now each is refused or simply not found, in
 * the endpoint's own format, and nothing is stored, on both databases.
 */

const NUL = '\u0000'

let server: TestServer
let issued: Issued

beforeAll(async () => {
  server = await startTestServer()
  issued = await issue(server, { scope: 'openid account:read account:write' })
})
afterAll(async () => {
  await server?.close()
})

function authorizeParams(overrides: Record<string, string> = {}): URLSearchParams {
  return new URLSearchParams({
    response_type: 'code',
    client_id: issued.client.clientId,
    redirect_uri: issued.client.redirectUri,
    scope: 'openid',
    state: 'nul',
    code_challenge: createPkce().challenge,
    code_challenge_method: 'S256',
    ...overrides,
  })
}

function authorize(search: URLSearchParams): Promise<Response> {
  return server.fetch(`/oauth/authorize?${search}`, { redirect: 'manual' })
}

describe('NUL at the authorization endpoint', () => {
  it('in client_id or redirect_uri: an error page, never a 500 or a redirect', async () => {
    const before = await snapshot(server)
    const cases: Array<Record<string, string>> = [
      { client_id: NUL },
      { client_id: `${issued.client.clientId}${NUL}` },
      { redirect_uri: `${issued.client.redirectUri}${NUL}` },
    ]
    for (const overrides of cases) {
      await expectHtmlPage(await authorize(authorizeParams(overrides)), 400)
    }
    expect(await snapshot(server)).toEqual(before)
  })

  it('in resource, nonce or scope: an error redirect with iss, storing nothing', async () => {
    const before = await snapshot(server)
    for (const [name, error] of [
      ['resource', 'invalid_target'],
      ['nonce', 'invalid_request'],
      ['scope', 'invalid_scope'],
    ] as const) {
      const response = await authorize(authorizeParams({ [name]: `x${NUL}y` }))
      expect(response.status, name).toBe(303)
      const location = new URL(response.headers.get('location') ?? '')
      expect(location.searchParams.get('error'), name).toBe(error)
      expect(location.searchParams.get('iss')).toBe(server.issuer)
    }
    expect(await snapshot(server)).toEqual(before)
  })

  it('in state and login_hint: carried through sign-in and consent, state returned exactly', async () => {
    const state = `s${NUL}t`
    const flow = await runAuthorization(server, issued.client, issued.person, {
      extra: { state, login_hint: `a${NUL}@b.c` },
    })
    expect(flow.code).toBeDefined()
    expect(flow.location.searchParams.get('state')).toBe(state)
  })
})

describe('NUL at the sign-in pages', () => {
  it('in the e-mail, password, request or csrf fields: an HTML answer, never a 500', async () => {
    const browser = new Browser(server)
    const page = await (await browser.request('/login')).text()
    const csrf = formField(page, 'csrf') ?? ''
    const cases: Array<Record<string, string>> = [
      { csrf, email: `a${NUL}@example.com`, password: 'x' },
      { csrf, email: issued.person.email, password: `${issued.person.password}${NUL}` },
      { csrf, email: `${NUL}`, password: NUL },
      { csrf, email: 'a@b.c', password: 'x', request: `par_${NUL}` },
      { csrf: `${csrf}${NUL}`, email: 'a@b.c', password: 'x' },
    ]
    for (const fields of cases) {
      const response = await browser.post('/login', fields)
      expect(response.status).toBeLessThan(500)
      expect(response.headers.get('content-type')).toMatch(/^text\/html/)
      expect(browser.cookies.has('portico_session')).toBe(false)
    }
  })

  it('still throttles failed sign-ins for an e-mail carrying NUL (the counter is kept by digest)', async () => {
    const browser = new Browser(server)
    const page = await (await browser.request('/login')).text()
    const csrf = formField(page, 'csrf') ?? ''
    const statuses: number[] = []
    for (let i = 0; i < 11; i++) {
      const response = await browser.post('/login', {
        csrf,
        email: `throttled${NUL}@example.com`,
        password: 'wrong',
      })
      statuses.push(response.status)
    }
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401))
    expect(statuses[10]).toBe(429)
  })

  it('in the request id of /login, /oauth/authorize/continue and the decision form', async () => {
    const browser = new Browser(server)
    expect(
      (await browser.request(`/login?request=${encodeURIComponent(`par_${NUL}`)}`)).status,
    ).toBe(200)
    await expectHtmlPage(
      await browser.request(`/oauth/authorize/continue?request=${encodeURIComponent(NUL)}`),
    )
    await expectHtmlPage(
      await browser.post('/oauth/authorize/decision', {
        request: NUL,
        csrf: NUL,
        decision: 'approve',
      }),
    )
  })

  it('in the connected-apps revoke form: nothing revoked, never a 500', async () => {
    const tokens = await issue(server)
    const run = await runAuthorization(server, tokens.client, tokens.person)
    const page = await (await run.browser.request('/account')).text()
    const csrf = formField(page, 'csrf') ?? ''
    const cases: Array<Record<string, string>> = [
      { csrf, client_id: `${tokens.client.clientId}${NUL}` },
      { csrf, client_id: tokens.client.clientId, user_id: `${tokens.person.user.id}${NUL}` },
    ]
    for (const fields of cases) {
      const response = await run.browser.post('/account/connections/revoke', fields)
      expect(response.status).toBe(303)
    }
    expect(
      (await callApi(server, '/api/oauth/userinfo', { token: tokens.accessToken })).status,
    ).toBe(200)
  })
})

describe('NUL at the token, revocation and introspection endpoints', () => {
  it('in any token-request parameter: a 4xx OAuth error, nothing issued', async () => {
    for (const name of [
      'client_id',
      'client_secret',
      'code',
      'redirect_uri',
      'code_verifier',
      'resource',
      'grant_type',
    ]) {
      // A fresh code each time: a refused exchange spends its code, and a second use is a replay.
      const minted = await mintCode(server, issued.client, issued.person.user)
      const before = await snapshot(server, ['grants', 'access_tokens', 'refresh_tokens'])
      const response = await postToken(server, codeFields(minted, { [name]: `x${NUL}` }))
      await expectOAuthError(response)
      expect(await snapshot(server, ['grants', 'access_tokens', 'refresh_tokens']), name).toEqual(
        before,
      )
    }
    for (const name of ['refresh_token', 'scope', 'resource']) {
      const response = await postToken(
        server,
        refreshFields(issued.client, issued.refreshToken, { [name]: `x${NUL}` }),
      )
      await expectOAuthError(response)
    }
  })

  it('in client_id (a client or an rs_ resource server), secret, token or hint: OAuth JSON', async () => {
    for (const path of ['/api/oauth/revoke', '/api/oauth/introspect']) {
      const cases: Array<Record<string, string>> = [
        { client_id: `pci_${NUL}`, token: 'x' },
        { client_id: `rs_${NUL}`, client_secret: 'x', token: 'x' },
        { client_id: issued.client.clientId, client_secret: NUL, token: 'x' },
      ]
      for (const fields of cases) {
        const body = await expectOAuthError(await server.fetch(path, formInit(fields)), 401)
        expect(body.error).toBe('invalid_client')
      }
      const ok = await server.fetch(
        path,
        formInit({ client_id: issued.client.clientId, token: `pat_${NUL}`, token_type_hint: NUL }),
      )
      expect(ok.status, path).toBe(200)
    }
  })
})

describe('NUL in JSON bodies: registration and the account API', () => {
  it('registration refuses NUL in client_name, redirect_uris and scope, storing nothing', async () => {
    const before = await snapshot(server, ['clients'])
    for (const body of [
      { redirect_uris: ['http://127.0.0.1:1/cb'], client_name: `a${NUL}b` },
      { redirect_uris: [`http://127.0.0.1:1/cb${NUL}`] },
      { redirect_uris: ['http://127.0.0.1:1/cb'], scope: `openid${NUL}` },
    ]) {
      await expectOAuthError(await server.fetch('/api/oauth/register', jsonInit(body)), 400)
    }
    expect(await snapshot(server, ['clients'])).toEqual(before)
  })

  it('PATCH /api/v1/account refuses NUL in every field with 422, changing nothing', async () => {
    const before = await snapshot(server, ['users'])
    for (const body of [
      { name: `a${NUL}` },
      { bio: `a${NUL}` },
      { locale: `en${NUL}` },
      { timezone: `UTC${NUL}` },
      { avatar_url: `https://a.example/${NUL}` },
      { notification_preferences: { [`new_order${NUL}`]: true } },
    ]) {
      const response = await callApi(server, '/api/v1/account', {
        token: issued.accessToken,
        init: {
          method: 'PATCH',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        },
      })
      await expectProblem(response, 422)
    }
    expect(await snapshot(server, ['users'])).toEqual(before)
  })
})

describe('NUL and half surrogate pairs in the business API', () => {
  const api = (path: string, init: RequestInit = {}, token?: string) =>
    server.fetch(path, {
      ...init,
      headers: {
        ...(token && { authorization: `Bearer ${token}` }),
        ...(init.body !== undefined && { 'content-type': 'application/json' }),
      },
    })

  /** How many rows the business tables a refused write could have touched hold. */
  const contents = async () => {
    const out: Record<string, number> = {}
    for (const table of ['courses', 'posts', 'forms', 'form_submissions', 'students'] as const)
      out[table] = (await server.deps.database.db.selectFrom(table).selectAll().execute()).length
    return out
  }

  it('in a path or query parameter of any route: 400 problem before any query', async () => {
    for (const path of [
      `/api/v1/courses?q=${encodeURIComponent(NUL)}`,
      `/api/v1/courses/${encodeURIComponent(`crs_${NUL}`)}`,
      `/api/v1/forms/${encodeURIComponent(`frm_${NUL}`)}`,
      `/api/v1/events?status=draft${encodeURIComponent(NUL)}`,
    ])
      await expectProblem(await api(path), 400)
  })

  it('in a text field of a write: 422 naming the field, nothing stored', async () => {
    const writer = await issue(server, { role: 'owner', scope: 'courses:write posts:write' })
    const before = await contents()
    for (const [path, body, field] of [
      ['/api/v1/courses', { title: `A${NUL}` }, 'title'],
      ['/api/v1/posts', { title: 'Fine', body: `<p>${NUL}</p>` }, 'body'],
      ['/api/v1/posts', { title: 'Half \ud800 a pair', body: '<p>x</p>' }, 'title'],
    ] as const) {
      const problem = await expectProblem(
        await api(path, { method: 'POST', body: JSON.stringify(body) }, writer.accessToken),
        422,
      )
      expect(problem.errors).toContainEqual(
        expect.objectContaining({ field, code: 'invalid_characters' }),
      )
    }
    expect(await contents()).toEqual(before)
  })

  it('in an anonymous form submission: 422 naming the answer or member, nothing stored', async () => {
    const now = Date.now()
    await server.deps.database.db
      .insertInto('forms')
      .values({
        id: 'frm_nul',
        title: 'Contact',
        type: 'contact',
        status: 'active',
        fields: JSON.stringify([
          { key: 'message', label: 'Message', type: 'textarea', required: true, options: [] },
        ]),
        linked_to: null,
        success_message: 'Thanks',
        created_at: now,
        updated_at: now,
      })
      .execute()
    const before = await contents()
    for (const [body, field] of [
      [{ answers: { message: `hi${NUL}` } }, 'answers.message'],
      [{ answers: { message: 'hi' }, email: `a${NUL}@example.com` }, 'email'],
      [{ answers: { message: 'hi' }, name: 'Half \udc00' }, 'name'],
    ] as const) {
      const problem = await expectProblem(
        await api('/api/v1/forms/frm_nul/submissions', {
          method: 'POST',
          body: JSON.stringify(body),
        }),
        422,
      )
      expect(problem.errors).toContainEqual(
        expect.objectContaining({ field, code: 'invalid_characters' }),
      )
    }
    expect(await contents()).toEqual(before)
  })

  it('in a list cursor: 400 invalid_cursor, whatever the cursor holds', async () => {
    const reader = await issue(server, { role: 'owner', scope: 'courses:read' })
    for (const values of [
      [{ a: 1 }, 'x'],
      [`x${NUL}`, 'y'],
      [[1], 2],
    ]) {
      const cursor = Buffer.from(JSON.stringify(['-created_at', values])).toString('base64url')
      const problem = await expectProblem(
        await api(`/api/v1/courses?cursor=${cursor}`, {}, reader.accessToken),
        400,
      )
      expect(problem.errors).toContainEqual(expect.objectContaining({ code: 'invalid_cursor' }))
    }
  })
})
