import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cookieNames } from '../../../src/http/browser.js'
import { digest } from '../../../src/platform/crypto.js'
import {
  Browser,
  createPerson,
  registerTestClient,
  runAuthorization,
  type TestPerson,
} from '../../support/flow.js'
import { startTestServer, type TestServer } from '../../support/server.js'
import { expectErrorPage, locationOf, signIn, TestClock } from '../authorize/support.js'

/**
 * Issue 3, "People and sessions": sessions are server-side records behind an HttpOnly,
 * SameSite=Lax cookie that is Secure with the __Host- prefix whenever the issuer is https;
 * a new session id at every sign-in; sign-out is protected by its own CSRF token and ends
 * the session.
 */

const clock = new TestClock()
let server: TestServer
let person: TestPerson

beforeAll(async () => {
  server = await startTestServer({ clock })
  person = await createPerson(server)
})
afterAll(async () => {
  await server?.close()
})

/** The attributes of a Set-Cookie line, lower-cased, by name ('' for flags). */
function cookieAttributes(line: string): Map<string, string> {
  const [, ...parts] = line.split(';')
  return new Map(
    parts.map((part) => {
      const [name = '', ...value] = part.trim().split('=')
      return [name.toLowerCase(), value.join('=')] as const
    }),
  )
}

/** The Set-Cookie line for `name` in a response. */
function setCookieLine(response: Response, name: string): string {
  const line = response.headers.getSetCookie().find((l) => l.startsWith(`${name}=`))
  expect(line, `no Set-Cookie for ${name}`).toBeDefined()
  return line ?? ''
}

/** Whether the browser's cookies still name a live session. */
async function isSignedIn(browser: Browser): Promise<boolean> {
  const response = await browser.request('/')
  return locationOf(response) === '/account'
}

/** The sign-out form's token from the account page. */
async function logoutToken(browser: Browser): Promise<string> {
  const page = await (await browser.request('/account')).text()
  const token = /action="\/logout"><input type="hidden" name="csrf" value="([^"]+)"/.exec(page)?.[1]
  expect(token).toBeDefined()
  return token ?? ''
}

describe('the session cookie on an http issuer', () => {
  it('is HttpOnly, SameSite=Lax, Path=/, host-only, and not Secure', async () => {
    const browser = new Browser(server)
    const response = await signIn(browser, person)
    const attributes = cookieAttributes(setCookieLine(response, 'portico_session'))
    expect(attributes.has('httponly')).toBe(true)
    expect(attributes.get('samesite')).toBe('Lax')
    expect(attributes.get('path')).toBe('/')
    expect(attributes.has('secure')).toBe(false)
    expect(attributes.has('domain')).toBe(false)
  })

  it('is a session cookie that names the session by an opaque random value', async () => {
    const browser = new Browser(server)
    const response = await signIn(browser, person)
    const line = setCookieLine(response, 'portico_session')
    expect(line).toMatch(/^portico_session=pss_[A-Za-z0-9_-]{43};/)
    expect(line).not.toContain(person.user.id)
    expect(line).not.toContain(person.email)
  })

  it('sets the browser cookie with the same flags', async () => {
    const response = await new Browser(server).request('/login')
    const attributes = cookieAttributes(setCookieLine(response, 'portico_browser'))
    expect(attributes.has('httponly')).toBe(true)
    expect(attributes.get('samesite')).toBe('Lax')
    expect(attributes.get('path')).toBe('/')
    expect(attributes.has('secure')).toBe(false)
  })
})

describe('sessions are server-side records', () => {
  it('stores only the digest of the session id', async () => {
    const browser = new Browser(server)
    await signIn(browser, person)
    const token = browser.cookies.get('portico_session') ?? ''
    const row = await server.deps.database.db
      .selectFrom('sessions')
      .selectAll()
      .where('id_digest', '=', digest(token))
      .executeTakeFirst()
    expect(row?.user_id).toBe(person.user.id)
    expect(JSON.stringify(row)).not.toContain(token)
  })

  it('ends when its record is deleted, whatever the cookie says', async () => {
    const browser = new Browser(server)
    await signIn(browser, person)
    expect(await isSignedIn(browser)).toBe(true)
    await server.deps.sessions.delete(digest(browser.cookies.get('portico_session') ?? ''))
    expect(await isSignedIn(browser)).toBe(false)
  })

  it('ends when it expires (12 hours by default)', async () => {
    const browser = new Browser(server)
    await signIn(browser, person)
    clock.advance(12 * 3600_000 - 1000)
    expect(await isSignedIn(browser)).toBe(true)
    clock.advance(1000)
    expect(await isSignedIn(browser)).toBe(false)
  })

  it('ignores a made-up session cookie', async () => {
    const browser = new Browser(server)
    browser.cookies.set('portico_session', `pss_${'A'.repeat(43)}`)
    expect(await isSignedIn(browser)).toBe(false)
  })
})

describe('a new session id at every sign-in (no session fixation)', () => {
  it('replaces a cookie value planted before sign-in', async () => {
    const planted = `pss_${'F'.repeat(43)}`
    const browser = new Browser(server)
    browser.cookies.set('portico_session', planted)
    expect((await signIn(browser, person)).status).toBe(303)
    const after = browser.cookies.get('portico_session')
    expect(after).toMatch(/^pss_/)
    expect(after).not.toBe(planted)
    const fixed = new Browser(server)
    fixed.cookies.set('portico_session', planted)
    expect(await isSignedIn(fixed)).toBe(false)
  })

  it("does not keep an attacker's own planted session alive, nor let it follow the victim", async () => {
    const attacker = new Browser(server)
    await signIn(attacker, await createPerson(server))
    const attackerSession = attacker.cookies.get('portico_session') ?? ''
    const victim = new Browser(server)
    victim.cookies.set('portico_session', attackerSession)
    await signIn(victim, person)
    expect(victim.cookies.get('portico_session')).not.toBe(attackerSession)
    // The session the attacker planted was ended by the victim's sign-in.
    expect(await isSignedIn(attacker)).toBe(false)
  })

  it('issues a different session id when the same person signs in again', async () => {
    const browser = new Browser(server)
    await signIn(browser, person)
    const first = browser.cookies.get('portico_session') ?? ''
    await signIn(browser, person)
    const second = browser.cookies.get('portico_session') ?? ''
    expect(second).toMatch(/^pss_/)
    expect(second).not.toBe(first)
    const old = new Browser(server)
    old.cookies.set('portico_session', first)
    expect(await isSignedIn(old)).toBe(false)
    expect(await isSignedIn(browser)).toBe(true)
  })
})

describe('sign-out', () => {
  it('refuses a sign-out without its CSRF token and keeps the session', async () => {
    const browser = new Browser(server)
    await signIn(browser, person)
    const page = await expectErrorPage(await browser.post('/logout', {}), 403)
    expect(page).toContain('Sign-out form expired')
    expect(await isSignedIn(browser)).toBe(true)
  })

  it("refuses a sign-out carrying another session's token", async () => {
    const mine = new Browser(server)
    await signIn(mine, person)
    const theirs = new Browser(server)
    await signIn(theirs, person)
    await expectErrorPage(await mine.post('/logout', { csrf: await logoutToken(theirs) }), 403)
    expect(await isSignedIn(mine)).toBe(true)
  })

  it('ends the session with its token: the old cookie no longer works', async () => {
    const browser = new Browser(server)
    await signIn(browser, person)
    const token = browser.cookies.get('portico_session') ?? ''
    const response = await browser.post('/logout', { csrf: await logoutToken(browser) })
    expect(response.status).toBe(303)
    expect(locationOf(response)).toBe('/login')
    const cleared = cookieAttributes(setCookieLine(response, 'portico_session'))
    expect(cleared.get('max-age')).toBe('0')
    expect(browser.cookies.has('portico_session')).toBe(false)
    const replay = new Browser(server)
    replay.cookies.set('portico_session', token)
    expect(await isSignedIn(replay)).toBe(false)
    expect(locationOf(await replay.request('/account'))).toBe('/login')
  })

  it('leaves other sessions of the same person signed in', async () => {
    const one = new Browser(server)
    await signIn(one, person)
    const two = new Browser(server)
    await signIn(two, person)
    await one.post('/logout', { csrf: await logoutToken(one) })
    expect(await isSignedIn(one)).toBe(false)
    expect(await isSignedIn(two)).toBe(true)
  })

  it('sends the next authorization to the sign-in page', async () => {
    const client = await registerTestClient(server)
    const { browser } = await runAuthorization(server, client, person)
    await browser.post('/logout', { csrf: await logoutToken(browser) })
    const response = await browser.request(
      `/oauth/authorize?${new URLSearchParams({
        response_type: 'code',
        client_id: client.clientId,
        redirect_uri: client.redirectUri,
        scope: 'openid',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
      })}`,
    )
    expect(locationOf(response)).toMatch(/^\/login\?request=par_/)
  })
})

describe('on an https issuer', () => {
  let secure: TestServer
  beforeAll(async () => {
    secure = await startTestServer({ env: { PORTICO_ISSUER: 'https://portico.school.example' } })
  })
  afterAll(async () => {
    await secure?.close()
  })

  it('names the cookies with the __Host- prefix and marks them Secure', async () => {
    const member = await createPerson(secure)
    const browser = new Browser(secure)
    const response = await signIn(browser, member)
    expect(response.status).toBe(303)
    for (const name of ['__Host-portico_session', '__Host-portico_browser']) {
      expect(browser.cookies.has(name)).toBe(true)
    }
    const attributes = cookieAttributes(setCookieLine(response, '__Host-portico_session'))
    expect(attributes.has('secure')).toBe(true)
    expect(attributes.has('httponly')).toBe(true)
    expect(attributes.get('samesite')).toBe('Lax')
    expect(attributes.get('path')).toBe('/')
    expect(attributes.has('domain')).toBe(false)
    expect(browser.cookies.has('portico_session')).toBe(false)
  })

  it('ignores a session cookie without the prefix', async () => {
    const member = await createPerson(secure)
    const browser = new Browser(secure)
    await signIn(browser, member)
    const plain = new Browser(secure)
    plain.cookies.set('portico_session', browser.cookies.get('__Host-portico_session') ?? '')
    expect(locationOf(await plain.request('/'))).toBe('/login')
    expect(locationOf(await browser.request('/'))).toBe('/account')
  })

  it('runs the whole authorization with the prefixed cookies and the https iss', async () => {
    const client = await registerTestClient(secure)
    const member = await createPerson(secure)
    const result = await runAuthorization(secure, client, member, { extra: { state: 'sec' } })
    expect(result.code).toMatch(/^pac_/)
    expect(result.location.searchParams.get('iss')).toBe('https://portico.school.example')
  })
})

describe('cookieNames()', () => {
  it('uses __Host- names and Secure for an https issuer', () => {
    expect(cookieNames('https://id.school.example')).toEqual({
      session: '__Host-portico_session',
      browser: '__Host-portico_browser',
      secure: true,
    })
  })

  it('uses plain names without Secure for an http issuer', () => {
    expect(cookieNames('http://127.0.0.1:3000')).toEqual({
      session: 'portico_session',
      browser: 'portico_browser',
      secure: false,
    })
  })
})
