import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { answerInClient } from '../../../src/api/approvals/client-answers.js'
import type { TokenCaller } from '../../../src/api/caller.js'
import { identifyCaller } from '../../../src/api/caller.js'
import { apiOperations } from '../../../src/api/operations.js'
import { Browser, createPerson, formField } from '../../support/flow.js'
import { readJson } from '../../support/http.js'
import { startTestServer, type TestServer } from '../../support/server.js'
import { issue, signIn } from '../../support/token-lifecycle.js'
import { COURSES, call, decide, expectHeld, newCourse, pageOf } from './held-calls.js'

/**
 * Issue 35, the approval page: who may answer it, signing in on the way, and what is held at
 * all (a rehearsal never; Portico acting for itself never).
 */
let server: TestServer
beforeAll(async () => {
  server = await startTestServer({ env: { PORTICO_CONFIRMATIONS: 'on' } })
})
afterAll(async () => {
  await server?.close()
})

/** A held course delete: the agent, the course's path, and the problem. */
async function heldDelete(title: string) {
  const agent = await issue(server, { role: 'editor', scope: COURSES })
  const course = await newCourse(server, agent.accessToken, title)
  const path = `/api/v1/courses/${course.id}`
  const problem = await expectHeld(server, await call(server, agent.accessToken, path, 'DELETE'))
  return { agent, path, problem }
}

describe('the approval page', () => {
  it('sends a visitor to sign in, then back to the approval', async () => {
    const { agent, problem } = await heldDelete('Signed in on the way')
    const browser = new Browser(server)
    const first = await browser.request(pageOf(server, problem))
    expect(first.status).toBe(303)
    const login = first.headers.get('location') ?? ''
    expect(login).toBe(`/login?approval=${problem.approval_id}`)
    const page = await (await browser.request(login)).text()
    expect(formField(page, 'approval')).toBe(problem.approval_id)
    const signedIn = await browser.post('/login', {
      csrf: formField(page, 'csrf') ?? '',
      approval: problem.approval_id,
      email: agent.person.email,
      password: agent.person.password,
    })
    expect(signedIn.status).toBe(303)
    expect(signedIn.headers.get('location')).toBe(pageOf(server, problem))
    const shown = await browser.request(pageOf(server, problem))
    expect(shown.status).toBe(200)
    expect(shown.headers.get('x-frame-options')).toBe('DENY')
    expect(shown.headers.get('content-security-policy')).toContain("frame-ancestors 'none'")
    const text = await shown.text()
    expect(text).toContain('Signed in on the way')
    expect(text).toContain('courses.delete')
    expect(text).toContain('value="approve"')
  })

  it('refuses anyone but the person for a person confirmation, and changes nothing', async () => {
    const { agent, path, problem } = await heldDelete('Not theirs')
    const stranger = await signIn(server, await createPerson(server, 'owner'))
    const page = await stranger.request(pageOf(server, problem))
    expect(page.status).toBe(403)
    const text = await page.text()
    expect(text).toContain('Only the person the app acts for')
    expect(text).not.toContain('Not theirs')
    const posted = await stranger.post(pageOf(server, problem), {
      csrf: formField(text, 'csrf') ?? 'forged',
      decision: 'approve',
    })
    expect(posted.status).toBe(403)
    await expectHeld(server, await call(server, agent.accessToken, path, 'DELETE'))
    expect((await call(server, agent.accessToken, path)).status).toBe(200)
    // A form without the page's CSRF token decides nothing, even for the right person.
    const own = await signIn(server, agent.person)
    const forged = await own.post(pageOf(server, problem), { csrf: 'forged', decision: 'approve' })
    expect(forged.status).toBe(403)
    await expectHeld(server, await call(server, agent.accessToken, path, 'DELETE'))
  })

  it('asks an owner or admin for a role change that makes an admin', async () => {
    const agent = await issue(server, { role: 'owner', scope: 'members:read members:write' })
    const member = await createPerson(server, 'editor')
    const path = `/api/v1/members/${member.user.id}`
    const problem = await expectHeld(
      server,
      await call(server, agent.accessToken, path, 'PATCH', { role: 'admin' }),
    )
    expect(problem.confirmation).toBe('owner')
    expect(problem.detail).toContain('from editor to admin')
    // The member themselves is no owner or admin.
    const editor = await signIn(server, member)
    expect((await editor.request(pageOf(server, problem))).status).toBe(403)
    await decide(server, await createPerson(server, 'admin'), problem, 'approve')
    const ran = await call(server, agent.accessToken, path, 'PATCH', { role: 'admin' })
    expect(ran.status).toBe(200)
    expect((await readJson(ran)).role).toBe('admin')
  })

  it('shows an unknown or malformed approval as not found', async () => {
    const browser = await signIn(server, await createPerson(server, 'owner'))
    expect((await browser.request('/approvals/apr_AAAAAAAAAAAAAAAAAAAAAA')).status).toBe(404)
    expect((await browser.request('/approvals/%3Cscript%3E')).status).toBe(404)
  })
})

describe('what is never held', () => {
  it('a dry run, and Portico acting for itself', async () => {
    const agent = await issue(server, { role: 'editor', scope: COURSES })
    const course = await newCourse(server, agent.accessToken, 'Rehearsed')
    const caller = (await identifyCaller(
      `Bearer ${agent.accessToken}`,
      server.deps,
      server.issuer,
    )) as TokenCaller
    const remove = apiOperations(server.deps).find((o) => o.name === 'courses.delete')
    if (!remove) throw new Error('courses.delete expected')
    const input = { params: { id: String(course.id) }, query: {} }
    const rehearsal = await remove.run({ ...input, caller, dryRun: true })
    expect(rehearsal.status).toBe(200)
    expect(rehearsal.headers?.['dry-run']).toBe('true')
    await expectHeld(
      server,
      await call(server, agent.accessToken, `/api/v1/courses/${course.id}`, 'DELETE'),
    )
    const itself = await remove.run({ ...input, caller: { ...caller, recorded: false } })
    expect(itself.status).toBe(204)
  })
})

describe('an answer given in the agent’s own client (the hook for MCP elicitation)', () => {
  it('is taken for a person confirmation of the same grant, and never for an owner one', async () => {
    const { agent, path, problem } = await heldDelete('Answered in the client')
    const caller = (await identifyCaller(
      `Bearer ${agent.accessToken}`,
      server.deps,
      server.issuer,
    )) as TokenCaller
    const other = await issue(server, { role: 'editor', scope: COURSES, person: agent.person })
    const otherCaller = (await identifyCaller(
      `Bearer ${other.accessToken}`,
      server.deps,
      server.issuer,
    )) as TokenCaller
    expect(await answerInClient(server.deps, problem.approval_id, otherCaller, true)).toBe(false)
    expect(await answerInClient(server.deps, problem.approval_id, caller, true)).toBe(true)
    expect(await answerInClient(server.deps, problem.approval_id, caller, false)).toBe(false)
    expect((await call(server, agent.accessToken, path, 'DELETE')).status).toBe(204)

    const admin = await issue(server, { role: 'owner', scope: 'members:read members:write' })
    const member = await createPerson(server, 'editor')
    const held = await expectHeld(
      server,
      await call(server, admin.accessToken, `/api/v1/members/${member.user.id}`, 'PATCH', {
        role: 'admin',
      }),
    )
    const adminCaller = (await identifyCaller(
      `Bearer ${admin.accessToken}`,
      server.deps,
      server.issuer,
    )) as TokenCaller
    expect(await answerInClient(server.deps, held.approval_id, adminCaller, true)).toBe(false)
  })
})
