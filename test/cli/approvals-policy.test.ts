import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { COURSES, call, expectHeld, newCourse } from '../http/approvals/held-calls.js'
import { runCli } from '../support/cli.js'
import { readJson } from '../support/http.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { databaseUrlOf, issue } from '../support/token-lifecycle.js'

/**
 * `portico approvals policy` (issue 35): the owners change which writes wait for a yes, per
 * operation; a running server applies the change at the next call, and the activity record
 * keeps it.
 */
let server: TestServer
let env: Record<string, string>
beforeAll(async () => {
  server = await startTestServer({ env: { PORTICO_CONFIRMATIONS: 'on' } })
  env = {
    DATABASE_URL: databaseUrlOf(server),
    PORTICO_KEY_ENCRYPTION_SECRET: 'test-secret-test-secret-test-secret-0123',
  }
})
afterAll(async () => {
  await server?.close()
})

describe('portico approvals policy', { timeout: 120_000 }, () => {
  it('lists every write with its confirmation', async () => {
    const listed = await runCli(['approvals', 'policy'], env)
    expect(listed.code).toBe(0)
    expect(listed.stdout).toMatch(/^courses\.delete\s+person$/m)
    expect(listed.stdout).toMatch(/^courses\.publish\s+none$/m)
    expect(listed.stdout).toMatch(/^members\.update\s+depends on the call$/m)
    expect(listed.stdout).not.toContain('courses.list')
  })

  it('changes one, the server applies it, and the activity record keeps it', async () => {
    const agent = await issue(server, { role: 'editor', scope: COURSES })
    const course = await newCourse(server, agent.accessToken, 'Published only with a yes')
    const changed = await runCli(['approvals', 'policy', 'courses.publish', 'owner'], env)
    expect(changed).toMatchObject({ code: 0 })
    expect(changed.stdout).toContain('courses.publish: default → owner')
    const problem = await expectHeld(
      server,
      await call(server, agent.accessToken, `/api/v1/courses/${course.id}/publish`, 'POST'),
    )
    expect(problem.confirmation).toBe('owner')
    const json = JSON.parse((await runCli(['approvals', 'policy', '--json'], env)).stdout)
    expect(json).toContainEqual({ operation: 'courses.publish', default: 'none', setting: 'owner' })

    expect((await runCli(['approvals', 'policy', 'courses.delete', 'none'], env)).code).toBe(0)
    const removed = await call(server, agent.accessToken, `/api/v1/courses/${course.id}`, 'DELETE')
    expect(removed.status).toBe(204)
    expect((await runCli(['approvals', 'policy', 'courses.delete', 'default'], env)).code).toBe(0)

    const auditor = await issue(server, { role: 'owner', scope: 'school:read' })
    const activity = await readJson(
      await call(server, auditor.accessToken, '/api/v1/activity?record_id=courses.publish'),
    )
    expect(activity.data[0]).toMatchObject({
      operation: 'approvals.policy',
      client_id: 'portico-cli',
      changes: [{ field: 'confirmation', before: 'default', after: 'owner' }],
    })
  })

  it('refuses what is not a write, or not a level', async () => {
    const read = await runCli(['approvals', 'policy', 'courses.list', 'person'], env)
    expect(read.code).toBe(2)
    expect(read.stderr).toContain('is not a write operation')
    const level = await runCli(['approvals', 'policy', 'courses.delete', 'everyone'], env)
    expect(level.code).toBe(2)
    expect(level.stderr).toContain('none, person, owner')
  })
})
