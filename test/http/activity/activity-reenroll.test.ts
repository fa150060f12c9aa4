import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPerson, registerTestClient } from '../../support/flow.js'
import { type Json, readJson } from '../../support/http.js'
import { startTestServer, type TestServer } from '../../support/server.js'
import { issue } from '../../support/token-lifecycle.js'
import { apiClient } from '../api-resources/conventions.js'

// Enrolling again answers the enrollment that exists; reactivating an ended one is a change
// the activity record keeps, as an update's would be.

let server: TestServer
let call: ReturnType<typeof apiClient>

beforeAll(async () => {
  server = await startTestServer()
  const owner = await createPerson(server, 'owner')
  const app = await registerTestClient(server, { client_name: 'Claude Code' })
  const issued = await issue(server, {
    person: owner,
    client: app,
    scope: 'courses:write students:read students:write school:read',
  })
  call = apiClient(server, issued.accessToken)
})
afterAll(async () => {
  await server?.close()
})

async function send(path: string, method: string, json?: Json): Promise<Json> {
  const response = await call(path, { method, ...(json && { json }) })
  const text = await response.text()
  return { status: response.status, body: text ? JSON.parse(text) : undefined }
}

describe('enrolling again', () => {
  it('records the reactivation of an ended enrollment, and nothing when it was active', async () => {
    const course = await send('/api/v1/courses', 'POST', {
      title: 'Night Skies',
      pricing_plans: [{ name: 'Free', type: 'free', price: { amount: 0, currency: 'USD' } }],
    })
    const student = await send('/api/v1/students', 'POST', {
      email: 'again@example.test',
      name: 'Again',
    })
    const enroll = () =>
      send('/api/v1/enrollments', 'POST', {
        student_id: student.body.id,
        course_id: course.body.id,
      })
    const made = await enroll()
    expect(made.status, JSON.stringify([course, student, made])).toBe(201)
    const id = made.body.id
    expect((await send(`/api/v1/enrollments/${id}`, 'DELETE')).status).toBe(204)
    const again = await enroll()
    expect(again.status).toBe(200)
    expect(again.body).toMatchObject({ id, status: 'active' })
    // Enrolling an active learner once more changes nothing, and records nothing.
    expect((await enroll()).status).toBe(200)

    const page = await readJson(await call(`/api/v1/activity?record_id=${id}`))
    expect(page.data.map((r: Json) => r.operation)).toEqual([
      'enrollments.create',
      'enrollments.delete',
      'enrollments.create',
    ])
    expect(page.data[0].changes).toEqual([{ field: 'status', before: 'revoked', after: 'active' }])
  })
})
