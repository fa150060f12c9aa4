import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Browser, createPerson, formField, type TestPerson } from '../../support/flow.js'
import { startTestServer, type TestServer } from '../../support/server.js'
import { expectErrorPage, locationOf, TestClock } from '../authorize/support.js'

/**
 * Issue 3, "People and sessions": the sign-in page (e-mail + password); the answer and its
 * timing never reveal whether an account exists; the form is protected against login CSRF.
 */

// Each test moves the clock to a fresh throttling window, so failures here never add up.
const clock = new TestClock()
let server: TestServer
let person: TestPerson

beforeAll(async () => {
  server = await startTestServer({ clock })
  person = await createPerson(server, 'teaching_assistant')
})
afterAll(async () => {
  await server?.close()
})

interface Attempt {
  readonly status: number
  readonly page: string
  readonly response: Response
}

/** Opens the sign-in page in a fresh browser and submits it. */
async function attempt(email: string, password: string, browser = new Browser(server)) {
  const form = await (await browser.request('/login')).text()
  const response = await browser.post('/login', {
    csrf: formField(form, 'csrf') ?? '',
    email,
    password,
  })
  const page = response.status === 303 ? '' : await response.text()
  return { status: response.status, page, response } satisfies Attempt
}

/** The error message of a sign-in page. */
function message(page: string): string | undefined {
  return /<p class="error" role="alert" id="login-error">([^<]*)<\/p>/.exec(page)?.[1]
}

describe('signing in', () => {
  it('signs in with the right e-mail and password and sets a session cookie', async () => {
    clock.advance(15 * 60_000)
    const browser = new Browser(server)
    const { status, response } = await attempt(person.email, person.password, browser)
    expect(status).toBe(303)
    expect(locationOf(response)).toBe('/account')
    expect([...browser.cookies.keys()]).toContain('portico_session')
  })

  it('accepts the e-mail address in another case and with surrounding spaces', async () => {
    clock.advance(15 * 60_000)
    const { status } = await attempt(`  ${person.email.toUpperCase()} `, person.password)
    expect(status).toBe(303)
  })

  it('asks for both fields when one is empty', async () => {
    clock.advance(15 * 60_000)
    const { status, page } = await attempt(person.email, '')
    expect(status).toBe(400)
    expect(message(page)).toBe('Enter your e-mail address and password.')
  })

  it('keeps the typed e-mail, never the password, when a sign-in fails', async () => {
    clock.advance(15 * 60_000)
    const { page } = await attempt(person.email, 'not the password 12345')
    expect(page).toContain(`value="${person.email}"`)
    expect(page).not.toContain('not the password 12345')
  })
})

describe('a failed sign-in never reveals whether the account exists', () => {
  it('answers a wrong password and an unknown account with the same status and message', async () => {
    clock.advance(15 * 60_000)
    const wrong = await attempt(person.email, 'wrong password 123')
    const unknown = await attempt('nobody-here@example.com', 'wrong password 123')
    expect(wrong.status).toBe(401)
    expect(unknown.status).toBe(wrong.status)
    expect(message(wrong.page)).toBe('The e-mail address or password is not correct.')
    expect(message(unknown.page)).toBe(message(wrong.page))
  })

  it('answers with the same page apart from the typed e-mail and the form token', async () => {
    clock.advance(15 * 60_000)
    const normalise = (page: string, email: string) =>
      page.replaceAll(email, 'EMAIL').replace(/name="csrf" value="[^"]*"/, 'CSRF')
    const wrong = await attempt(person.email, 'wrong password 123')
    const unknown = await attempt('nobody-at-all@example.com', 'wrong password 123')
    expect(normalise(unknown.page, 'nobody-at-all@example.com')).toBe(
      normalise(wrong.page, person.email),
    )
  })

  it('answers a disabled account like a wrong password, even with the right password', async () => {
    clock.advance(15 * 60_000)
    const disabled = await createPerson(server)
    await server.deps.database.db
      .updateTable('users')
      .set({ disabled_at: clock.now() })
      .where('id', '=', disabled.user.id)
      .execute()
    const { status, page } = await attempt(disabled.email, disabled.password)
    expect(status).toBe(401)
    expect(message(page)).toBe('The e-mail address or password is not correct.')
  })

  it('takes about as long for an unknown account as for a wrong password', async () => {
    clock.advance(15 * 60_000)
    const time = async (email: string) => {
      const browser = new Browser(server)
      const form = await (await browser.request('/login')).text()
      const started = performance.now()
      const response = await browser.post('/login', {
        csrf: formField(form, 'csrf') ?? '',
        email,
        password: 'wrong password 123',
      })
      await response.text()
      return performance.now() - started
    }
    await time('warm-up@example.com')
    const known: number[] = []
    const unknown: number[] = []
    for (let i = 0; i < 6; i++) {
      known.push(await time(person.email))
      unknown.push(await time(`nobody${i}@example.com`))
    }
    // Both verify an argon2id hash; without the decoy an unknown account would answer in a
    // fraction of the time. The fastest of several runs is the least disturbed by load.
    expect(Math.min(...unknown)).toBeGreaterThan(Math.min(...known) * 0.3)
    expect(Math.min(...known)).toBeGreaterThan(Math.min(...unknown) * 0.3)
  })
})

describe('the sign-in form is protected against login CSRF', () => {
  it('answers 403 to a sign-in without the csrf field, and signs nobody in', async () => {
    const browser = new Browser(server)
    await browser.request('/login')
    const response = await browser.post('/login', {
      email: person.email,
      password: person.password,
    })
    const page = await expectErrorPage(response, 403)
    expect(page).toContain('Sign-in form expired')
    expect([...browser.cookies.keys()]).not.toContain('portico_session')
  })

  it("answers 403 to a sign-in carrying another browser's csrf token", async () => {
    const attacker = new Browser(server)
    const attackerForm = await (await attacker.request('/login')).text()
    const victim = new Browser(server)
    await victim.request('/login')
    const response = await victim.post('/login', {
      csrf: formField(attackerForm, 'csrf') ?? '',
      email: person.email,
      password: person.password,
    })
    await expectErrorPage(response, 403)
    expect([...victim.cookies.keys()]).not.toContain('portico_session')
  })

  it('answers 403 to a sign-in from a browser without the browser cookie', async () => {
    const browser = new Browser(server)
    const form = await (await browser.request('/login')).text()
    const response = await new Browser(server).post('/login', {
      csrf: formField(form, 'csrf') ?? '',
      email: person.email,
      password: person.password,
    })
    await expectErrorPage(response, 403)
  })

  it('answers 403 to a made-up csrf token', async () => {
    const browser = new Browser(server)
    await browser.request('/login')
    const response = await browser.post('/login', {
      csrf: 'x'.repeat(43),
      email: person.email,
      password: person.password,
    })
    await expectErrorPage(response, 403)
  })

  it('sets the browser cookie the token is bound to when the sign-in page is shown', async () => {
    const browser = new Browser(server)
    const response = await browser.request('/login')
    expect(response.headers.getSetCookie().join('\n')).toMatch(/^portico_browser=pbr_/m)
    const again = await browser.request('/login')
    expect(again.headers.getSetCookie()).toEqual([])
  })
})
