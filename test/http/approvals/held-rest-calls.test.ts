import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sweep } from '../../../src/main.js'
import { setPolicy } from '../../../src/storage/approvals.js'
import { createTestClock, type TestClock } from '../../support/grants.js'
import { readJson } from '../../support/http.js'
import { startTestServer, type TestServer } from '../../support/server.js'
import { issue } from '../../support/token-lifecycle.js'
import { COURSES, call, decide, expectHeld, newCourse, PLAN, pageOf } from './held-calls.js'

/**
 * Issue 35 over REST: a write whose confirmation is `person` or `owner`, made with an access
 * token, is answered 403 `approval_required` and changes nothing; after the yes on the
 * approval page the same request by the same grant runs once.
 */
let server: TestServer
let clock: TestClock
beforeAll(async () => {
  clock = createTestClock()
  server = await startTestServer({ clock, env: { PORTICO_CONFIRMATIONS: 'on' } })
})
afterAll(async () => {
  await server?.close()
})

const MINUTE = 60_000
const priced = (amount: number) => ({
  pricing_plans: [{ ...PLAN, price: { amount, currency: 'USD' } }],
})

describe('a held call', () => {
  it('is answered approval_required, with the approval’s page, id and expiry; nothing changes', async () => {
    const agent = await issue(server, { role: 'editor', scope: COURSES })
    const course = await newCourse(server, agent.accessToken, 'Draft to delete')
    const held = await call(server, agent.accessToken, `/api/v1/courses/${course.id}`, 'DELETE')
    const problem = await expectHeld(server, held)
    expect(problem.status).toBe(403)
    expect(problem.confirmation).toBe('person')
    expect(problem.detail).toContain('Draft to delete')
    expect(Date.parse(problem.expires_at)).toBe(clock.now() + 15 * MINUTE)
    const still = await call(server, agent.accessToken, `/api/v1/courses/${course.id}`)
    expect(still.status).toBe(200)
    // Asking again re-uses the pending approval.
    const again = await expectHeld(
      server,
      await call(server, agent.accessToken, `/api/v1/courses/${course.id}`, 'DELETE'),
    )
    expect(again.approval_id).toBe(problem.approval_id)
  })

  it('runs once after the yes, and the activity record names the approver', async () => {
    const agent = await issue(server, { role: 'editor', scope: COURSES })
    const course = await newCourse(server, agent.accessToken, 'Golden Hour Walk', true)
    const path = `/api/v1/courses/${course.id}`
    const problem = await expectHeld(
      server,
      await call(server, agent.accessToken, path, 'PATCH', priced(5900)),
    )
    const browser = await decide(server, agent.person, problem, 'approve')
    const ran = await call(server, agent.accessToken, path, 'PATCH', priced(5900))
    expect(ran.status).toBe(200)
    expect((await readJson(ran)).pricing_plans[0].price.amount).toBe(5900)
    // The approval is spent: the same request waits for a new yes.
    const second = await expectHeld(
      server,
      await call(server, agent.accessToken, path, 'PATCH', priced(5900)),
    )
    expect(second.approval_id).not.toBe(problem.approval_id)

    const auditor = await issue(server, { role: 'owner', scope: 'school:read' })
    const activity = await readJson(
      await call(server, auditor.accessToken, `/api/v1/activity?record_id=${course.id}`),
    )
    const change = activity.data.find(
      (a: { operation: string }) => a.operation === 'courses.update',
    )
    expect(change).toMatchObject({
      approval_id: problem.approval_id,
      approved_by: agent.person.user.id,
    })
    expect(Date.parse(change.approved_at)).toBe(Math.floor(clock.now() / 1000) * 1000)
    // And so does the person's account page, beside the change.
    const account = await (
      await browser.request(`/account?app=${encodeURIComponent(agent.client.clientId)}`)
    ).text()
    expect(account).toMatch(/changed [^<]*“Golden Hour Walk”.*\(approved by you\)/s)
  })

  it('does not run with changed arguments, for another grant, or twice', async () => {
    const agent = await issue(server, { role: 'editor', scope: COURSES })
    const other = await issue(server, { scope: COURSES, person: agent.person })
    const course = await newCourse(server, agent.accessToken, 'Bound to its arguments', true)
    const path = `/api/v1/courses/${course.id}`
    const problem = await expectHeld(
      server,
      await call(server, agent.accessToken, path, 'PATCH', priced(7000)),
    )
    await decide(server, agent.person, problem, 'approve')
    const changed = await expectHeld(
      server,
      await call(server, agent.accessToken, path, 'PATCH', priced(7100)),
    )
    expect(changed.approval_id).not.toBe(problem.approval_id)
    const otherGrant = await expectHeld(
      server,
      await call(server, other.accessToken, path, 'PATCH', priced(7000)),
    )
    expect(otherGrant.approval_id).not.toBe(problem.approval_id)
    const price = async () =>
      (await readJson(await call(server, agent.accessToken, path))).pricing_plans[0].price.amount
    expect(await price()).toBe(4900)
    // The approved request itself still runs, once.
    const runs = await Promise.all(
      [1, 2, 3].map(() => call(server, agent.accessToken, path, 'PATCH', priced(7000))),
    )
    expect(runs.map((r) => r.status).sort()).toEqual([200, 403, 403])
    expect(await price()).toBe(7000)
  })

  it('is refused when the person says no, until the refusal lapses', async () => {
    const agent = await issue(server, { role: 'editor', scope: COURSES })
    const course = await newCourse(server, agent.accessToken, 'Kept after a no')
    const path = `/api/v1/courses/${course.id}`
    const problem = await expectHeld(server, await call(server, agent.accessToken, path, 'DELETE'))
    const browser = await decide(server, agent.person, problem, 'refuse')
    const refused = await call(server, agent.accessToken, path, 'DELETE')
    expect(refused.status).toBe(403)
    expect(await readJson(refused)).toMatchObject({
      code: 'approval_refused',
      approval_id: problem.approval_id,
    })
    expect((await call(server, agent.accessToken, path)).status).toBe(200)
    const page = await (await browser.request(pageOf(server, problem))).text()
    expect(page).toContain('Refused')
    expect(page).not.toContain('value="approve"')
    // Counted per grant on the person's account page.
    const account = await (await browser.request('/account')).text()
    expect(account).toContain('1 declined, 0 expired waiting for a yes')
    clock.advance(16 * MINUTE)
    const asked = await expectHeld(server, await call(server, agent.accessToken, path, 'DELETE'))
    expect(asked.approval_id).not.toBe(problem.approval_id)
  })

  it('expires: an approval not used in time runs nothing, and the page says so', async () => {
    const agent = await issue(server, { role: 'editor', scope: COURSES })
    const course = await newCourse(server, agent.accessToken, 'Too late')
    const path = `/api/v1/courses/${course.id}`
    const problem = await expectHeld(server, await call(server, agent.accessToken, path, 'DELETE'))
    const browser = await decide(server, agent.person, problem, 'approve')
    clock.advance(15 * MINUTE)
    const late = await expectHeld(server, await call(server, agent.accessToken, path, 'DELETE'))
    expect(late.approval_id).not.toBe(problem.approval_id)
    expect((await call(server, agent.accessToken, path)).status).toBe(200)
    const page = await (await browser.request(pageOf(server, problem))).text()
    expect(page).toContain('expired')
    // A pending approval past its time can no longer be approved: its page says so.
    clock.advance(15 * MINUTE)
    const lapsed = await (await browser.request(pageOf(server, late))).text()
    expect(lapsed).toContain('expired')
    expect(lapsed).not.toContain('value="approve"')
    await expectHeld(server, await call(server, agent.accessToken, path, 'DELETE'))
    const account = await (await browser.request('/account')).text()
    expect(account).toContain('0 declined, 2 expired waiting for a yes')
    // The sweeper writes down what time already decided.
    await sweep(server.deps)
    const stored = await server.deps.database.db
      .selectFrom('approvals')
      .select('status')
      .where('id', 'in', [problem.approval_id, late.approval_id])
      .execute()
    expect(stored.map((row) => row.status)).toEqual(['expired', 'expired'])
    const swept = await (await browser.request('/account')).text()
    expect(swept).toContain('0 declined, 2 expired waiting for a yes')
    expect((await call(server, agent.accessToken, path)).status).toBe(200)
  })

  it('is not held for a call that needs no confirmation, nor for one the token may not make', async () => {
    const agent = await issue(server, { role: 'editor', scope: COURSES })
    const course = await newCourse(server, agent.accessToken, 'Plain edit', true)
    const path = `/api/v1/courses/${course.id}`
    const edit = await call(server, agent.accessToken, path, 'PATCH', { subtitle: 'Now with more' })
    expect(edit.status).toBe(200)
    const reader = await issue(server, { role: 'editor', scope: 'courses:read' })
    const refused = await call(server, reader.accessToken, path, 'DELETE')
    expect(refused.status).toBe(403)
    expect((await readJson(refused)).code).toBe('insufficient_scope')
    const invalid = await call(server, agent.accessToken, path, 'PATCH', { pricing_plans: 'free' })
    expect(invalid.status).toBe(422)
  })

  it('waits for at most 20 yeses of one grant at once', async () => {
    const agent = await issue(server, { role: 'editor', scope: COURSES })
    const course = await newCourse(server, agent.accessToken, 'Asked too often', true)
    const path = `/api/v1/courses/${course.id}`
    const asked = new Set<string>()
    for (let amount = 100; amount < 120; amount += 1)
      asked.add(
        (
          await expectHeld(
            server,
            await call(server, agent.accessToken, path, 'PATCH', priced(amount)),
          )
        ).approval_id,
      )
    expect(asked.size).toBe(20)
    const more = await call(server, agent.accessToken, path, 'PATCH', priced(120))
    expect(more.status).toBe(429)
    expect((await readJson(more)).code).toBe('too_many_approvals')
    // A request already waiting is still answered with its approval.
    await expectHeld(server, await call(server, agent.accessToken, path, 'PATCH', priced(100)))
    clock.advance(16 * MINUTE)
    await expectHeld(server, await call(server, agent.accessToken, path, 'PATCH', priced(120)))
  })

  it('does not run on a yes asked at a lower level than the operation now needs', async () => {
    const agent = await issue(server, { role: 'editor', scope: COURSES })
    const course = await newCourse(server, agent.accessToken, 'Raised meanwhile')
    const path = `/api/v1/courses/${course.id}`
    const problem = await expectHeld(server, await call(server, agent.accessToken, path, 'DELETE'))
    expect(problem.confirmation).toBe('person')
    await decide(server, agent.person, problem, 'approve')
    const db = server.deps.database.db
    await setPolicy(db, 'courses.delete', 'owner', clock.now())
    try {
      const raised = await expectHeld(server, await call(server, agent.accessToken, path, 'DELETE'))
      expect(raised.confirmation).toBe('owner')
      expect(raised.approval_id).not.toBe(problem.approval_id)
      expect((await call(server, agent.accessToken, path)).status).toBe(200)
    } finally {
      await setPolicy(db, 'courses.delete', undefined, clock.now())
    }
  })
})
