import { existsSync } from 'node:fs'
import path from 'node:path'
import type { Browser as Chromium } from 'playwright-core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { launchBrowser } from '../support/browser.js'
import { createPerson, registerTestClient, type TestPerson } from '../support/flow.js'
import { freePort } from '../support/ports.js'
import { startTestServer, type TestServer } from '../support/server.js'
import {
  type CliHome,
  createCliHome,
  decideInChromium,
  loginWithChromium,
  runCli,
  startCli,
} from './support.js'

/** What a person meets when `portico-cli login` cannot finish, and what it tells them. */

let server: TestServer
let chromium: Chromium
let person: TestPerson
const homes: CliHome[] = []

beforeAll(async () => {
  server = await startTestServer()
  chromium = await launchBrowser()
  person = await createPerson(server, 'owner')
})
afterEach(() => {
  for (const home of homes.splice(0)) home.remove()
})
afterAll(async () => {
  await chromium?.close()
  await server?.close()
})

function home(): CliHome {
  const created = createCliHome()
  homes.push(created)
  return created
}

const hasSession = (h: CliHome) => existsSync(path.join(h.configDir, 'session.json'))

/** Starts a login and returns the authorization URL it opened, and the running process. */
async function startLogin(h: CliHome) {
  const running = startCli(['login', '--server', server.issuer], h.env)
  const url = new URL(await h.openedUrl())
  return { running, url, callback: url.searchParams.get('redirect_uri') ?? '' }
}

describe('portico-cli login when something goes wrong', { timeout: 60_000 }, () => {
  it('says so when the server cannot be reached', async () => {
    const url = `http://127.0.0.1:${await freePort()}`
    const { code, stderr } = await runCli(['login', '--server', url], home().env)
    expect(code).toBe(1)
    expect(stderr).toBe(
      `portico-cli: cannot reach ${url}: connection refused. Is Portico running there, and is the address right?\n`,
    )
  })

  it('refuses a server whose metadata names another issuer (RFC 8414 §3.3)', async () => {
    const typed = server.issuer.replace('127.0.0.1', 'localhost')
    const { code, stderr } = await runCli(['login', '--server', typed], home().env)
    expect(code).toBe(1)
    expect(stderr).toContain(
      `issuer mismatch: ${typed} says its issuer is "${server.issuer}". Use the address the server calls itself`,
    )
  })

  it('refuses plain http to a host that is not loopback, before any request', async () => {
    const { code, stderr } = await runCli(
      ['login', '--server', 'http://school.example.com'],
      home().env,
    )
    expect(code).toBe(1)
    expect(stderr).toContain('refusing plain http to school.example.com')
  })

  it('explains a refused registration (429 from the rate limit) and stores nothing', async () => {
    const limited = await startTestServer({ env: { PORTICO_REGISTRATION_RATE_LIMIT: '1' } })
    try {
      await registerTestClient(limited)
      const h = home()
      const { code, signal, stderr } = await runCli(['login', '--server', limited.issuer], h.env)
      // One comparison, so that a run that hung shows what it printed before it was killed.
      expect({ code, signal, stderr }).toEqual({
        code: 1,
        signal: null,
        stderr: expect.stringMatching(
          new RegExp(
            `^portico-cli: registration refused by ${limited.issuer}: too many registrations from this address; retry later \\(slow_down\\)\\. Try again in \\d+ seconds\\.\\n$`,
          ),
        ),
      })
      expect(existsSync(h.configDir)).toBe(false)
    } finally {
      await limited.close()
    }
  })

  it('reports access_denied when the person denies in the browser', async () => {
    const h = home()
    const { result, page } = await loginWithChromium(chromium, h, server.issuer, person, {
      decision: 'Deny',
      screenshot: 'portico-cli-denied',
    })
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(
      'portico-cli: login cancelled: access was denied in the browser (access_denied)\n',
    )
    expect(await page.textContent('h1')).toBe('Login cancelled')
    await page.context().close()
    expect(hasSession(h)).toBe(false)
  })

  it('rejects an answer with another state, and shows the browser why', async () => {
    const h = home()
    const { running, callback } = await startLogin(h)
    const forged = new URL(callback)
    forged.search = new URLSearchParams({
      code: 'pac_forged',
      state: 'not-the-state',
      iss: server.issuer,
    }).toString()
    const page = await fetch(forged)
    expect(page.status).toBe(400)
    expect(await page.text()).toContain('State mismatch')
    const { code, stderr } = await running.done
    expect(code).toBe(1)
    expect(stderr).toContain('portico-cli: state mismatch: the answer that reached portico-cli')
    expect(hasSession(h)).toBe(false)
  })

  it('rejects an answer from another issuer (RFC 9207 mix-up defence)', async () => {
    const h = home()
    const { running, url, callback } = await startLogin(h)
    const forged = new URL(callback)
    forged.search = new URLSearchParams({
      code: 'pac_forged',
      state: url.searchParams.get('state') ?? '',
      iss: 'https://attacker.example',
    }).toString()
    expect((await fetch(forged)).status).toBe(400)
    const { code, stderr } = await running.done
    expect(code).toBe(1)
    expect(stderr).toContain(
      `portico-cli: issuer mismatch: the answer came with iss="https://attacker.example", not ${server.issuer}`,
    )
    expect(hasSession(h)).toBe(false)
  })

  it('prints the address when no browser can be opened, and the login still works', async () => {
    const h = home()
    const running = startCli(['login', '--server', server.issuer], {
      ...h.env,
      PORTICO_CLI_BROWSER: 'exit 3;',
    })
    let url: string | undefined
    const deadline = Date.now() + 30_000
    while (!url && Date.now() < deadline) {
      url = /Could not open a browser\. Open this address to sign in:\n {2}(\S+)\n/.exec(
        running.stderr(),
      )?.[1]
      await new Promise((resolve) => setTimeout(resolve, 25))
    }
    expect(url).toMatch(new RegExp(`^${server.issuer}/oauth/authorize\\?`))
    const page = await decideInChromium(chromium, url ?? '', person, 'Approve')
    await page.context().close()
    const { code } = await running.done
    expect(code).toBe(0)
    expect(hasSession(h)).toBe(true)
  })
})
