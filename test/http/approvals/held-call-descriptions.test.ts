import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readJson } from '../../support/http.js'
import { startTestServer, type TestServer } from '../../support/server.js'
import { issue } from '../../support/token-lifecycle.js'
import { call, decide, expectHeld, newCourse } from './held-calls.js'

/**
 * Issue 35: a held call says what will happen in the person's words, from the record and
 * what it touches: cancelling an event names it and counts the attendees who lose their
 * place; expiring an enrollment names the learner and the course.
 */
let server: TestServer
beforeAll(async () => {
  server = await startTestServer({ env: { PORTICO_CONFIRMATIONS: 'on' } })
})
afterAll(async () => {
  await server?.close()
})

const HOUR = 3_600_000
const at = (ms: number) => new Date(ms).toISOString()

/** A learner made directly in the database. */
async function learner(n: number): Promise<string> {
  const id = `stu_cancel_${n}`
  await server.deps.database.db
    .insertInto('students')
    .values({
      id,
      email: `cancel${n}@example.com`,
      name: `Learner ${n}`,
      user_id: null,
      phone: null,
      locale: null,
      timezone: null,
      status: 'active',
      tags: '[]',
      marketing_opt_in: 0,
      source: 'api',
      notes: null,
      created_at: Date.now(),
      updated_at: Date.now(),
    })
    .execute()
  return id
}

describe('cancelling an event', () => {
  it('names the event and its registered attendees, and cancels once after the yes', async () => {
    const agent = await issue(server, { role: 'editor', scope: 'events:read events:write' })
    const token = agent.accessToken
    const created = await call(server, token, '/api/v1/events', 'POST', {
      title: 'Golden Hour Walk',
      starts_at: at(Date.now() + 48 * HOUR),
      ends_at: at(Date.now() + 49 * HOUR),
      location: { platform: 'zoom', join_url: 'https://meet.example/walk' },
      tickets: [{ name: 'Free', price: { amount: 0, currency: 'USD' } }],
    })
    expect(created.status).toBe(201)
    const event = await readJson(created)
    expect((await call(server, token, `/api/v1/events/${event.id}/publish`, 'POST')).status).toBe(
      200,
    )
    for (const n of [1, 2]) {
      const added = await call(server, token, `/api/v1/events/${event.id}/attendees`, 'POST', {
        student_id: await learner(n),
        ticket_id: event.tickets[0].id,
      })
      expect(added.status).toBe(201)
    }
    const cancel = `/api/v1/events/${event.id}/cancel`
    const problem = await expectHeld(server, await call(server, token, cancel, 'POST', {}))
    expect(problem.detail).toContain(
      'Cancel the event “Golden Hour Walk”? 2 registered attendees lose their place.',
    )
    const still = await readJson(await call(server, token, `/api/v1/events/${event.id}`))
    expect(still.status).toBe('published')
    await decide(server, agent.person, problem, 'approve')
    const ran = await call(server, token, cancel, 'POST', {})
    expect(ran.status).toBe(200)
    expect((await readJson(ran)).status).toBe('canceled')
  })
})

describe('expiring an enrollment', () => {
  it('names the learner and the course', async () => {
    const agent = await issue(server, {
      role: 'owner',
      scope: 'courses:read courses:write students:read students:write',
    })
    const token = agent.accessToken
    const course = await newCourse(server, token, 'Portrait Lighting', true)
    const enrolled = await call(server, token, '/api/v1/enrollments', 'POST', {
      student_id: await learner(3),
      course_id: course.id,
    })
    expect(enrolled.status).toBe(201)
    const enrollment = await readJson(enrolled)
    const expire = `/api/v1/enrollments/${enrollment.id}/expire`
    const problem = await expectHeld(server, await call(server, token, expire, 'POST', {}))
    expect(problem.detail).toContain(
      'Expire “Learner 3”’s enrollment in “Portrait Lighting”? They lose access to the course.',
    )
    const still = await readJson(await call(server, token, `/api/v1/enrollments/${enrollment.id}`))
    expect(still.status).toBe('active')
  })
})
