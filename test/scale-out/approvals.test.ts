import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { COURSES, call, decide, expectHeld, newCourse } from '../http/approvals/held-calls.js'
import { Browser } from '../support/flow.js'
import { type Instances, startInstances } from '../support/instances.js'
import type { TestServer } from '../support/server.js'
import { needsPostgres } from '../support/skips.js'
import { issue } from '../support/token-lifecycle.js'

/**
 * Issue 35 across instances: a call held by one instance is approved on another's page, and
 * the repeated request, sent to both at once, runs exactly once.
 */
const skip = needsPostgres('approvals across instances (test/scale-out/approvals)')

describe.skipIf(skip)('approvals on several instances of one PostgreSQL', () => {
  let cluster: Instances
  /** Instance `at` as the helpers see a server. */
  const instance = (at: number) =>
    ({ ...cluster.at(at), deps: cluster.deps, issuer: cluster.issuer }) as unknown as TestServer
  beforeAll(async () => {
    cluster = await startInstances(2, { env: { PORTICO_CONFIRMATIONS: 'on' } })
  })
  afterAll(async () => {
    await cluster?.stop()
  })

  it('holds on one, approves on the other, and runs once whichever gets the retry', async () => {
    const [a, b] = [instance(0), instance(1)]
    const agent = await issue(a, { role: 'editor', scope: COURSES })
    const course = await newCourse(a, agent.accessToken, 'Shared truth')
    const path = `/api/v1/courses/${course.id}`
    const problem = await expectHeld(a, await call(a, agent.accessToken, path, 'DELETE'))
    const browser = new Browser(cluster.at(1))
    const login = await (await browser.request('/login')).text()
    const csrf = /name="csrf" value="([^"]*)"/.exec(login)?.[1] ?? ''
    const signedIn = await browser.post('/login', {
      csrf,
      email: agent.person.email,
      password: agent.person.password,
    })
    expect(signedIn.status).toBe(303)
    await decide(b, browser, problem, 'approve')
    const answers = await Promise.all([a, b].map((s) => call(s, agent.accessToken, path, 'DELETE')))
    expect(answers.filter((r) => r.status === 204)).toHaveLength(1)
    expect((await call(b, agent.accessToken, path)).status).toBe(404)
  })
})
