import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createIntegration } from '../../../src/oauth/registration/register-client.js'
import { policies } from '../../../src/storage/approvals.js'
import { Browser, createPerson, formField } from '../../support/flow.js'
import { readJson } from '../../support/http.js'
import { startTestServer, type TestServer } from '../../support/server.js'
import { issue, signIn } from '../../support/token-lifecycle.js'
import { COURSES, call, expectHeld, newCourse } from './held-calls.js'

/**
 * Issue 35, the Apps and agents page (`/account/apps`): owners and admins answer the requests
 * waiting for a yes there, revoke grants, set the confirmations and trust metadata documents;
 * anyone else gets a 403 page, and every form needs the page's CSRF token.
 */
let server: TestServer
beforeAll(async () => {
  server = await startTestServer({ env: { PORTICO_CONFIRMATIONS: 'on' } })
})
afterAll(async () => {
  await server?.close()
})

const PAGE = '/account/apps'

/** The page as `browser` sees it, and its forms' CSRF token. */
async function open(browser: Browser): Promise<{ text: string; csrf: string }> {
  const page = await browser.request(PAGE)
  expect(page.status).toBe(200)
  expect(page.headers.get('x-frame-options')).toBe('DENY')
  expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'")
  const text = await page.text()
  return { text, csrf: formField(text, 'csrf') ?? '' }
}

/** A held delete of a new draft course by an agent acting for `role` (or for `person`). */
async function heldDelete(title: string, options: Parameters<typeof issue>[1] = {}) {
  const agent = await issue(server, { role: 'owner', scope: COURSES, ...options })
  const course = await newCourse(server, agent.accessToken, title)
  const path = `/api/v1/courses/${course.id}`
  const problem = await expectHeld(server, await call(server, agent.accessToken, path, 'DELETE'))
  return { agent, path, problem }
}

describe('who sees the Apps and agents page', () => {
  it('sends a visitor to sign in, then back to the page', async () => {
    const owner = await createPerson(server, 'owner')
    const browser = new Browser(server)
    const first = await browser.request(PAGE)
    expect(first.status).toBe(303)
    const login = first.headers.get('location') ?? ''
    expect(login).toBe('/login?to=%2Faccount%2Fapps')
    const page = await (await browser.request(login)).text()
    expect(formField(page, 'to')).toBe(PAGE)
    const signedIn = await browser.post('/login', {
      csrf: formField(page, 'csrf') ?? '',
      to: PAGE,
      email: owner.email,
      password: owner.password,
    })
    expect(signedIn.status).toBe(303)
    expect(signedIn.headers.get('location')).toBe(PAGE)
    await open(browser)
    // Any other place to return to is not followed.
    const elsewhere = await new Browser(server).request('/login?to=https%3A%2F%2Fevil.example')
    expect(formField(await elsewhere.text(), 'to')).toBeUndefined()
  })

  it('refuses an editor and a student with a 403 page, and their forms change nothing', async () => {
    const { problem } = await heldDelete('Not for editors')
    for (const role of ['editor', 'student'] as const) {
      const browser = await signIn(server, await createPerson(server, role))
      const page = await browser.request(PAGE)
      expect(page.status).toBe(403)
      expect(page.headers.get('x-frame-options')).toBe('DENY')
      const text = await page.text()
      expect(text).toContain('Owners and admins only')
      expect(text).not.toContain('Not for editors')
      const posted = await browser.post(`${PAGE}/approvals/${problem.approval_id}`, {
        csrf: 'forged',
        decision: 'approve',
      })
      expect(posted.status).toBe(403)
    }
  })

  it('shows an admin the page too', async () => {
    const admin = await signIn(server, await createPerson(server, 'admin'))
    const { text } = await open(admin)
    expect(text).toContain('Apps and agents')
    expect(text).toContain('courses.delete')
  })
})

describe('requests waiting for a yes', () => {
  it('lists them newest first; the owner approves one there, and the repeated call runs once', async () => {
    const older = await heldDelete('Older waiting course')
    const { agent, path, problem } = await heldDelete('Approved from the apps page')
    const owner = await signIn(server, agent.person)
    const { text, csrf } = await open(owner)
    expect(text).toContain('Approved from the apps page')
    expect(text.indexOf('Approved from the apps page')).toBeLessThan(
      text.indexOf('Older waiting course'),
    )
    // Someone else's person confirmation is listed, never answerable here.
    expect(text).toContain(`action="/account/apps/approvals/${problem.approval_id}"`)
    expect(text).not.toContain(`action="/account/apps/approvals/${older.problem.approval_id}"`)
    const stranger = await owner.post(`${PAGE}/approvals/${older.problem.approval_id}`, {
      csrf,
      decision: 'approve',
    })
    expect(stranger.status).toBe(403)
    expect(await stranger.text()).toContain('Only the person the app acts for')
    await expectHeld(server, await call(server, older.agent.accessToken, older.path, 'DELETE'))

    // The person's own /account lists their waiting request, linking to its page.
    const account = await (await owner.request('/account')).text()
    expect(account).toContain(`href="/approvals/${problem.approval_id}"`)

    const posted = await owner.post(`${PAGE}/approvals/${problem.approval_id}`, {
      csrf,
      decision: 'approve',
    })
    expect(posted.status).toBe(303)
    expect(posted.headers.get('location')).toBe(`${PAGE}?done=approved#waiting`)
    expect(await (await owner.request(`${PAGE}?done=approved`)).text()).toContain('Approved.')
    expect((await call(server, agent.accessToken, path, 'DELETE')).status).toBe(204)
    expect((await call(server, agent.accessToken, path, 'DELETE')).status).toBe(404)
    // Answered: no longer waiting, nor on the person's account page.
    expect((await open(owner)).text).not.toContain(
      `action="/account/apps/approvals/${problem.approval_id}"`,
    )
    expect(await (await owner.request('/account')).text()).not.toContain(
      `href="/approvals/${problem.approval_id}"`,
    )
  })

  it('lets an admin answer an owner confirmation, and refuse one', async () => {
    const agent = await issue(server, { role: 'owner', scope: 'members:read members:write' })
    const member = await createPerson(server, 'editor')
    const path = `/api/v1/members/${member.user.id}`
    const problem = await expectHeld(
      server,
      await call(server, agent.accessToken, path, 'PATCH', { role: 'admin' }),
    )
    expect(problem.confirmation).toBe('owner')
    const admin = await signIn(server, await createPerson(server, 'admin'))
    const { text, csrf } = await open(admin)
    expect(text).toContain(`action="/account/apps/approvals/${problem.approval_id}"`)
    const refused = await admin.post(`${PAGE}/approvals/${problem.approval_id}`, {
      csrf,
      decision: 'refuse',
    })
    expect(refused.headers.get('location')).toBe(`${PAGE}?done=refused#waiting`)
    const again = await call(server, agent.accessToken, path, 'PATCH', { role: 'admin' })
    expect(again.status).toBe(403)
    expect((await readJson(again)).code).toBe('approval_refused')
    // Answered once: a second answer changes nothing.
    const late = await admin.post(`${PAGE}/approvals/${problem.approval_id}`, {
      csrf,
      decision: 'approve',
    })
    expect(late.headers.get('location')).toBe(`${PAGE}?done=stale#waiting`)
    expect((await call(server, agent.accessToken, path)).status).toBe(200)
    expect((await readJson(await call(server, agent.accessToken, path))).role).toBe('editor')
  })

  it('refuses a form without the page’s CSRF token, and nothing is decided', async () => {
    const { agent, path, problem } = await heldDelete('Forged answer')
    const owner = await signIn(server, agent.person)
    await open(owner)
    for (const csrf of [undefined, 'forged']) {
      const posted = await owner.post(`${PAGE}/approvals/${problem.approval_id}`, {
        ...(csrf !== undefined && { csrf }),
        decision: 'approve',
      })
      expect(posted.status).toBe(403)
      expect(await posted.text()).toContain('Form expired')
    }
    await expectHeld(server, await call(server, agent.accessToken, path, 'DELETE'))
  })
})

describe('a person’s own waiting requests on /account', () => {
  it('lists an editor’s own request, linking to its approval page, and nobody else’s', async () => {
    const { agent, problem } = await heldDelete('Waiting for the editor', { role: 'editor' })
    const other = await heldDelete('Waiting for someone else', { role: 'editor' })
    const editor = await signIn(server, agent.person)
    const page = await editor.request('/account')
    expect(page.status).toBe(200)
    const text = await page.text()
    expect(text).toContain('Waiting for a yes')
    expect(text).toContain(`href="/approvals/${problem.approval_id}"`)
    expect(text).not.toContain(`/approvals/${other.problem.approval_id}`)
    expect(text).not.toContain('href="/account/apps"')
    expect((await editor.request(`/approvals/${problem.approval_id}`)).status).toBe(200)
    // An owner's account page links to the Apps and agents page.
    const owner = await signIn(server, await createPerson(server, 'owner'))
    expect(await (await owner.request('/account')).text()).toContain('href="/account/apps"')
  })

  it('answers an unknown request on the apps page as not found', async () => {
    const owner = await signIn(server, await createPerson(server, 'owner'))
    const { csrf } = await open(owner)
    const posted = await owner.post(`${PAGE}/approvals/apr_AAAAAAAAAAAAAAAAAAAAAA`, {
      csrf,
      decision: 'approve',
    })
    expect(posted.status).toBe(404)
  })
})

describe('connected apps', () => {
  it('lists every live grant with its person and scopes, and Revoke ends it and its tokens', async () => {
    const agent = await issue(server, {
      role: 'editor',
      scope: COURSES,
      metadata: { client_name: 'Grant To Revoke' },
    })
    expect((await call(server, agent.accessToken, '/api/v1/courses')).status).toBe(200)
    const owner = await signIn(server, await createPerson(server, 'owner'))
    const { text, csrf } = await open(owner)
    expect(text).toContain('Grant To Revoke')
    expect(text).toContain(agent.person.email)
    expect(text).toContain('<code>courses:write</code>')
    expect(text).toContain(`name="grant_id" value="${agent.grantId}"`)

    const forged = await owner.post(`${PAGE}/revoke`, { grant_id: agent.grantId })
    expect(forged.status).toBe(403)
    expect((await call(server, agent.accessToken, '/api/v1/courses')).status).toBe(200)

    const revoked = await owner.post(`${PAGE}/revoke`, { csrf, grant_id: agent.grantId })
    expect(revoked.status).toBe(303)
    expect(revoked.headers.get('location')).toBe(`${PAGE}?done=revoked#connected`)
    expect((await call(server, agent.accessToken, '/api/v1/courses')).status).toBe(401)
    expect((await open(owner)).text).not.toContain(`value="${agent.grantId}"`)
  })

  it('does not let an admin revoke an owner’s grant', async () => {
    const agent = await issue(server, { role: 'owner', scope: COURSES })
    const admin = await signIn(server, await createPerson(server, 'admin'))
    const { text, csrf } = await open(admin)
    expect(text).not.toContain(`name="grant_id" value="${agent.grantId}"`)
    const posted = await admin.post(`${PAGE}/revoke`, { csrf, grant_id: agent.grantId })
    expect(posted.status).toBe(403)
    expect((await call(server, agent.accessToken, '/api/v1/courses')).status).toBe(200)
  })
})

describe('the confirmation policy', () => {
  it('shows each write with its default, saves a change, applies it and records it', async () => {
    const person = await createPerson(server, 'owner')
    const owner = await signIn(server, person)
    const { text, csrf } = await open(owner)
    expect(text).toMatch(
      /name="level:courses\.delete">\s*<option value="default" selected>default \(person\)/,
    )
    expect(text).toContain('default (depends on the call)')

    const forged = await owner.post(`${PAGE}/policy`, { 'level:courses.publish': 'owner' })
    expect(forged.status).toBe(403)
    expect((await policies(server.deps.database.db)).get('courses.publish')).toBeUndefined()

    const bad = await owner.post(`${PAGE}/policy`, { csrf, 'level:courses.publish': 'always' })
    expect(bad.status).toBe(400)
    expect((await policies(server.deps.database.db)).get('courses.publish')).toBeUndefined()

    const saved = await owner.post(`${PAGE}/policy`, {
      csrf,
      'level:courses.publish': 'owner',
      'level:courses.delete': 'default',
    })
    expect(saved.status).toBe(303)
    expect(saved.headers.get('location')).toBe(`${PAGE}?done=policy#policy`)
    expect((await policies(server.deps.database.db)).get('courses.publish')).toBe('owner')
    const after = (await open(owner)).text
    expect(after).toMatch(/name="level:courses\.publish">[\s\S]*?<option value="owner" selected>/)

    // Applied at the next call: publishing now waits for an owner.
    const agent = await issue(server, { role: 'editor', scope: COURSES })
    const course = await newCourse(server, agent.accessToken, 'Publishing waits now')
    const held = await expectHeld(
      server,
      await call(server, agent.accessToken, `/api/v1/courses/${course.id}/publish`, 'POST'),
    )
    expect(held.confirmation).toBe('owner')

    // Recorded as `portico approvals policy` records it, naming the owner.
    const recorded = await server.deps.database.db
      .selectFrom('activity')
      .selectAll()
      .where('operation', '=', 'approvals.policy')
      .where('record_id', '=', 'courses.publish')
      .execute()
    expect(recorded).toHaveLength(1)
    expect(recorded[0]?.user_id).toBe(person.user.id)
    expect(JSON.parse(String(recorded[0]?.changes))).toEqual([
      { field: 'confirmation', before: 'default', after: 'owner' },
    ])

    // Saving the same settings again changes and records nothing; back to the default does.
    const same = await owner.post(`${PAGE}/policy`, { csrf, 'level:courses.publish': 'owner' })
    expect(same.headers.get('location')).toBe(`${PAGE}?done=unchanged#policy`)
    await owner.post(`${PAGE}/policy`, { csrf, 'level:courses.publish': 'default' })
    expect((await policies(server.deps.database.db)).get('courses.publish')).toBeUndefined()
    const count = await server.deps.database.db
      .selectFrom('activity')
      .select('id')
      .where('operation', '=', 'approvals.policy')
      .where('record_id', '=', 'courses.publish')
      .execute()
    expect(count).toHaveLength(2)
  })
})

describe('trusted metadata documents and integrations', () => {
  it('trusts a document URL as `portico integrations trust` does, and refuses one that cannot be a client_id', async () => {
    const owner = await signIn(server, await createPerson(server, 'owner'))
    const { csrf } = await open(owner)
    const url = 'https://assistant.example/oauth/connector.json'

    const forged = await owner.post(`${PAGE}/trust`, { url })
    expect(forged.status).toBe(403)
    expect(await server.deps.trustedClientDocuments.isTrusted(url)).toBe(false)

    const trusted = await owner.post(`${PAGE}/trust`, { csrf, url })
    expect(trusted.status).toBe(303)
    expect(trusted.headers.get('location')).toBe(`${PAGE}?done=trusted#integrations`)
    expect(await server.deps.trustedClientDocuments.isTrusted(url)).toBe(true)
    expect((await open(owner)).text).toContain(`<code>${url}</code>`)
    const again = await owner.post(`${PAGE}/trust`, { csrf, url })
    expect(again.headers.get('location')).toBe(`${PAGE}?done=already-trusted#integrations`)

    for (const wrong of ['http://assistant.example/client.json', 'https://a.example/x#frag']) {
      const refused = await owner.post(`${PAGE}/trust`, { csrf, url: wrong })
      expect(refused.status).toBe(400)
      const text = await refused.text()
      expect(text).toContain('Not trusted: client_id URL')
      expect(await server.deps.trustedClientDocuments.isTrusted(wrong)).toBe(false)
    }
  })

  it('lists registered integrations', async () => {
    const { client } = await createIntegration(server.deps, {
      name: '<b>Registered</b> integration',
      redirectUris: ['https://integration.example/callback'],
      confidential: true,
    })
    const owner = await signIn(server, await createPerson(server, 'owner'))
    const { text } = await open(owner)
    expect(text).toContain(client.clientId)
    expect(text).toContain('&lt;b&gt;Registered&lt;/b&gt; integration')
    expect(text).toContain('https://integration.example/callback')
  })
})
