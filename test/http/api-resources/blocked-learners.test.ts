import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connect, issueForMcp, textJson } from '../../mcp/support.js'
import { type Json, readJson } from '../../support/http.js'
import { startTestServer, type TestServer } from '../../support/server.js'
import { issue } from '../../support/token-lifecycle.js'
import { apiClient } from './conventions.js'

// One rule for blocked learners (src/api/people/blocked-learners.ts): a blocked learner gets
// no new access by any path. Each path is tried on a learner set up while active, then
// blocked: 409 learner_blocked and nothing written (the records read back the same); once
// unblocked, the same request goes through, so the block alone refused it.

const SCOPE = [
  'students:read students:write courses:read courses:write',
  'membership_plans:read membership_plans:write subscriptions:read subscriptions:write',
  'events:read events:write',
].join(' ')
const DAY = 86_400_000
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z')

let server: TestServer
let call: ReturnType<typeof apiClient>
let courseId: string
let planId: string
let eventId: string
let ticketId: string
let learners = 0

async function ok(path: string, json?: unknown, method = 'POST'): Promise<Json> {
  const response = await call(path, { method, json })
  const body = response.status === 204 ? {} : await readJson(response)
  expect(response.status, `${method} ${path}: ${JSON.stringify(body)}`).toBeLessThan(300)
  return body
}

beforeAll(async () => {
  server = await startTestServer()
  call = apiClient(server, (await issue(server, { role: 'owner', scope: SCOPE })).accessToken)
  courseId = (
    await ok('/api/v1/courses', {
      title: 'Blocked learners course',
      pricing_plans: [{ name: 'Free', type: 'free', price: { amount: 0, currency: 'USD' } }],
    })
  ).id
  planId = (
    await ok('/api/v1/membership_plans', {
      name: 'Blocked learners plan',
      billing_type: 'recurring',
      prices: [{ amount: { amount: 1900, currency: 'USD' }, interval: 'month' }],
    })
  ).id
  await ok(`/api/v1/membership_plans/${planId}/publish`)
  const event = await ok('/api/v1/events', {
    title: 'Blocked learners event',
    starts_at: iso(Date.now() + 2 * DAY),
    ends_at: iso(Date.now() + 2 * DAY + 3_600_000),
    location: { platform: 'zoom', join_url: 'https://meet.example/room' },
    tickets: [{ name: 'Seat', price: { amount: 0, currency: 'USD' }, quantity: 50 }],
  })
  eventId = event.id
  ticketId = event.tickets[0].id
})
afterAll(async () => {
  await server?.close()
})

/** A new learner, provisioned (invited) through the API. */
async function learner(): Promise<{ id: string; email: string }> {
  learners += 1
  const email = `blocked.${learners}@example.com`
  const made = await ok('/api/v1/students', { email, name: `Learner ${learners}` })
  return { id: made.id, email }
}
const block = async (id: string) =>
  expect((await ok(`/api/v1/students/${id}/block`)).status).toBe('blocked')
const unblock = async (id: string) =>
  expect((await ok(`/api/v1/students/${id}/unblock`)).status).toBe('active')

/** Everything that gives a learner access, as the API reads it back. */
async function accessOf(student: { id: string; email: string }): Promise<Json> {
  const list = async (path: string) => (await ok(path, undefined, 'GET')).data as Json[]
  const attendees = await list(`/api/v1/events/${eventId}/attendees?limit=100`)
  const event = await ok(`/api/v1/events/${eventId}`, undefined, 'GET')
  return {
    enrollments: await list(`/api/v1/enrollments?student_id=${student.id}`),
    subscriptions: await list(`/api/v1/subscriptions?student_id=${student.id}`),
    attendees: attendees.filter((a) => a.student_id === student.id || a.email === student.email),
    sold: event.tickets[0].sold_count,
  }
}

const enroll = (student: { id: string }, extra: Json = {}) => ({
  method: 'POST',
  path: '/api/v1/enrollments',
  json: { student_id: student.id, course_id: courseId, ...extra },
})
const subscribe = (student: { id: string }, extra: Json = {}) => ({
  method: 'POST',
  path: '/api/v1/subscriptions',
  json: { student_id: student.id, plan_id: planId, ...extra },
})
const attend = (json: Json) => ({
  method: 'POST',
  path: `/api/v1/events/${eventId}/attendees`,
  json,
})

interface Write {
  readonly method: string
  readonly path: string
  readonly json?: Json
}
interface Path {
  readonly name: string
  /** What the learner holds before the block; returns the write that would give more. */
  readonly arrange: (student: { id: string; email: string }) => Promise<Write>
  /** Once unblocked, the write answers what is already there (an idempotent create). */
  readonly idempotent?: true
}

const paths: Path[] = [
  { name: 'enrolling', arrange: async (s) => enroll(s) },
  {
    name: 'enrolling again after an unenroll (reactivation)',
    async arrange(s) {
      const made = await ok('/api/v1/enrollments', enroll(s).json)
      await ok(`/api/v1/enrollments/${made.id}`, undefined, 'DELETE')
      return enroll(s)
    },
  },
  {
    name: 'enrolling again after an expiry (reactivation)',
    async arrange(s) {
      const made = await ok('/api/v1/enrollments', enroll(s).json)
      await ok(`/api/v1/enrollments/${made.id}/expire`)
      return enroll(s)
    },
  },
  {
    name: 'enrolling again while enrolled',
    idempotent: true,
    async arrange(s) {
      await ok('/api/v1/enrollments', enroll(s).json)
      return enroll(s)
    },
  },
  {
    name: 'lengthening an enrollment',
    async arrange(s) {
      const made = await ok(
        '/api/v1/enrollments',
        enroll(s, { expires_at: iso(Date.now() + 30 * DAY) }).json,
      )
      const json = { expires_at: iso(Date.now() + 90 * DAY) }
      return { method: 'PATCH', path: `/api/v1/enrollments/${made.id}`, json }
    },
  },
  {
    name: 'making an enrollment lifetime',
    async arrange(s) {
      const made = await ok(
        '/api/v1/enrollments',
        enroll(s, { expires_at: iso(Date.now() + 30 * DAY) }).json,
      )
      return { method: 'PATCH', path: `/api/v1/enrollments/${made.id}`, json: { expires_at: null } }
    },
  },
  { name: 'granting a subscription', arrange: async (s) => subscribe(s) },
  {
    name: 'lengthening a manual grant',
    async arrange(s) {
      const made = await ok(
        '/api/v1/subscriptions',
        subscribe(s, { ends_at: iso(Date.now() + 30 * DAY) }).json,
      )
      const json = { ends_at: iso(Date.now() + 90 * DAY) }
      return { method: 'PATCH', path: `/api/v1/subscriptions/${made.id}`, json }
    },
  },
  {
    name: 'resuming a cancelling subscription',
    async arrange(s) {
      const made = await ok(
        '/api/v1/subscriptions',
        subscribe(s, { ends_at: iso(Date.now() + 30 * DAY) }).json,
      )
      await ok(`/api/v1/subscriptions/${made.id}/cancel`)
      return { method: 'POST', path: `/api/v1/subscriptions/${made.id}/resume` }
    },
  },
  { name: 'adding an attendee by student id', arrange: async (s) => attend({ student_id: s.id }) },
  {
    name: 'adding an attendee by a student’s e-mail address',
    arrange: async (s) => attend({ email: s.email.toUpperCase(), name: 'Someone' }),
  },
  {
    name: 'issuing a ticket to an attendee',
    arrange: async (s) => attend({ student_id: s.id, ticket_id: ticketId }),
  },
  {
    name: 'adding a canceled attendee again',
    async arrange(s) {
      const made = await ok(`/api/v1/events/${eventId}/attendees`, {
        student_id: s.id,
        ticket_id: ticketId,
      })
      await ok(`/api/v1/events/${eventId}/attendees/${made.id}`, { status: 'canceled' }, 'PATCH')
      return attend({ student_id: s.id })
    },
  },
  {
    name: 'taking a canceled attendee back',
    async arrange(s) {
      const made = await ok(`/api/v1/events/${eventId}/attendees`, {
        student_id: s.id,
        ticket_id: ticketId,
      })
      const path = `/api/v1/events/${eventId}/attendees/${made.id}`
      await ok(path, { status: 'canceled' }, 'PATCH')
      return { method: 'PATCH', path, json: { status: 'registered' } }
    },
  },
]

describe('a blocked learner gets no new access, by any path', () => {
  for (const { name, arrange, idempotent } of paths)
    it(`${name}: 409 learner_blocked, nothing written; allowed once unblocked`, async () => {
      const student = await learner()
      await unblock(student.id) // active, as a learner who signed up
      const write = await arrange(student)
      await block(student.id)
      const before = await accessOf(student)
      const refused = await call(write.path, { method: write.method, json: write.json })
      expect(refused.status).toBe(409)
      expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/)
      expect(await readJson(refused)).toMatchObject({
        status: 409,
        code: 'learner_blocked',
        type: 'https://portico.dev/problems/learner-blocked',
        detail: `the student ${student.id} is blocked; unblock them first`,
      })
      expect(await accessOf(student)).toEqual(before)
      await unblock(student.id)
      const allowed = await call(write.path, { method: write.method, json: write.json })
      expect(allowed.status, JSON.stringify(await readJson(allowed))).toBeLessThan(300)
      if (!idempotent) expect(await accessOf(student)).not.toEqual(before)
    })

  it('ending or shortening access stays open while blocked, and blocking keeps what is held', async () => {
    const student = await learner()
    const soon = iso(Date.now() + 30 * DAY)
    const enrollment = await ok('/api/v1/enrollments', enroll(student, { expires_at: soon }).json)
    const grant = await ok('/api/v1/subscriptions', subscribe(student, { ends_at: soon }).json)
    const seat = await ok(`/api/v1/events/${eventId}/attendees`, { student_id: student.id })
    await block(student.id)
    const held = await accessOf(student)
    expect(held.enrollments.map((e: Json) => e.status)).toEqual(['active'])
    expect(held.subscriptions.map((s: Json) => s.status)).toEqual(['active'])
    expect(held.attendees.map((a: Json) => a.status)).toEqual(['registered'])
    const sooner = { expires_at: iso(Date.now() + 10 * DAY) }
    await ok(`/api/v1/enrollments/${enrollment.id}`, sooner, 'PATCH')
    await ok(`/api/v1/subscriptions/${grant.id}`, { ends_at: sooner.expires_at }, 'PATCH')
    await ok(`/api/v1/events/${eventId}/attendees/${seat.id}`, { status: 'checked_in' }, 'PATCH')
    await ok(`/api/v1/events/${eventId}/attendees/${seat.id}`, { status: 'canceled' }, 'PATCH')
    await ok(`/api/v1/enrollments/${enrollment.id}/expire`)
    await ok(`/api/v1/subscriptions/${grant.id}/cancel`, { at_period_end: false })
    const ended = await accessOf(student)
    expect(ended.enrollments.map((e: Json) => e.status)).toEqual(['expired'])
    expect(ended.subscriptions.map((s: Json) => s.status)).toEqual(['canceled'])
    expect(ended.attendees.map((a: Json) => a.status)).toEqual(['canceled'])
  })

  it('an invited learner (not yet signed up) is not blocked', async () => {
    const student = await learner()
    expect((await ok(`/api/v1/students/${student.id}`, undefined, 'GET')).status).toBe('invited')
    for (const write of [enroll(student), subscribe(student), attend({ student_id: student.id })])
      expect((await call(write.path, { method: write.method, json: write.json })).status).toBe(201)
  })

  it('over MCP: the refusal is a tool error, and a dry run answers the same refusal', async () => {
    const student = await learner()
    await block(student.id)
    const { accessToken } = await issueForMcp(server, { role: 'owner', scope: SCOPE })
    const client = await connect(server, accessToken)
    const tries = [
      { name: 'enrollments_create', arguments: { student_id: student.id, course_id: courseId } },
      {
        name: 'enrollments_create',
        arguments: { student_id: student.id, course_id: courseId, dry_run: true },
      },
      {
        name: 'subscriptions_create',
        arguments: { student_id: student.id, plan_id: planId, dry_run: true },
      },
      { name: 'event_attendees_add', arguments: { id: eventId, student_id: student.id } },
    ]
    for (const request of tries) {
      const result = await client.callTool(request)
      expect(result.isError, JSON.stringify(request)).toBe(true)
      expect(textJson(result)).toMatchObject({ status: 409, code: 'learner_blocked' })
    }
    await client.close()
    const nothing = await accessOf(student)
    expect(nothing).toMatchObject({ enrollments: [], subscriptions: [], attendees: [] })
  })
})
