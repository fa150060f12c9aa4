import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { enrollments } from '../../../src/api/people/enrollments.resource.js'
import { students } from '../../../src/api/people/students.resource.js'
import { type Json, readJson } from '../../support/http.js'
import { startTestServer, type TestServer } from '../../support/server.js'
import { issue } from '../../support/token-lifecycle.js'
import { apiClient, checkConventions } from './conventions.js'

const SCOPE =
  'students:read students:write courses:read courses:write curriculum:read curriculum:write'
let server: TestServer
let call: ReturnType<typeof apiClient>
const courseIds: string[] = []
let studentId: string
/** Learners for the enrollment checks: each sample is a new (student, course) pair. */
const learners: string[] = []

async function post(path: string, json?: unknown): Promise<Json> {
  const response = await call(path, { method: 'POST', json })
  expect(response.status, path).toBeLessThan(300)
  return readJson(response)
}

beforeAll(async () => {
  server = await startTestServer()
  call = apiClient(server, (await issue(server, { role: 'owner', scope: SCOPE })).accessToken)
  for (let i = 0; i < 12; i += 1) {
    const course = await post('/api/v1/courses', {
      title: `Course ${i}`,
      pricing_plans: [{ name: 'Free', type: 'free', price: { amount: 0, currency: 'USD' } }],
    })
    courseIds.push(course.id)
  }
  studentId = (await post('/api/v1/students', { email: 'learner@example.com', name: 'Lee' })).id
  for (let i = 0; i < 4; i += 1)
    learners.push(
      (await post('/api/v1/students', { email: `pair${i}@example.com`, name: 'Pair' })).id,
    )
})
afterAll(async () => {
  await server?.close()
})

describe('/api/v1/students: the conventions', () => {
  checkConventions(() => server, {
    resource: students,
    sample: (n) => ({ email: `student${n}@example.com`, name: `Student ${n}`, tags: ['vip'] }),
    update: { notes: 'Prefers e-mail' },
    invalid: { body: { tags: 'vip' }, field: 'tags' },
    deniedRole: 'editor',
  })
})

let next = 0
describe('/api/v1/enrollments: the conventions', () => {
  checkConventions(() => server, {
    resource: enrollments,
    sample: () => {
      next += 1
      return {
        student_id: learners[Math.floor(next / courseIds.length)],
        course_id: courseIds[next % courseIds.length],
      }
    },
    update: { expires_at: '2040-01-01T00:00:00Z' },
    invalid: { body: { expires_at: 'tomorrow' }, field: 'expires_at' },
    deniedRole: 'lecturer',
  })
})

describe('students and enrollments: their own rules', () => {
  it('enrolls once per student and course: enrolling again answers 200 with the same one', async () => {
    const student = await post('/api/v1/students', { email: 'Twice@Example.com', name: 'Twice' })
    expect(student).toMatchObject({ email: 'twice@example.com', status: 'invited', source: 'api' })
    const json = { student_id: student.id, course_id: courseIds[0] }
    const first = await call('/api/v1/enrollments', { method: 'POST', json })
    const again = await call('/api/v1/enrollments', { method: 'POST', json })
    expect(first.status).toBe(201)
    expect(again.status).toBe(200)
    const enrollment = await readJson(first)
    expect((await readJson(again)).id).toBe(enrollment.id)
    expect((await call(`/api/v1/enrollments/${enrollment.id}`, { method: 'DELETE' })).status).toBe(
      204,
    )
    expect((await readJson(await call(`/api/v1/enrollments/${enrollment.id}`))).status).toBe(
      'revoked',
    )
    const back = await call('/api/v1/enrollments', { method: 'POST', json })
    expect(await readJson(back)).toMatchObject({ id: enrollment.id, status: 'active' })
    const expired = await post(`/api/v1/enrollments/${enrollment.id}/expire`)
    expect(expired.status).toBe('expired')
    const listed = await readJson(await call(`/api/v1/enrollments?student_id=${student.id}`))
    expect(listed.data.map((e: Json) => e.id)).toEqual([enrollment.id])
  })

  it('refuses enrollments of unknown students, courses and plans, naming the field', async () => {
    const response = await call('/api/v1/enrollments', {
      method: 'POST',
      json: { student_id: 'stu_nope', course_id: 'crs_nope', pricing_plan_id: 'pln_nope' },
    })
    expect(response.status).toBe(422)
    const fields = (await readJson(response)).errors.map((e: Json) => e.field)
    expect(fields).toEqual(expect.arrayContaining(['student_id', 'course_id']))
  })

  it('tracks lesson progress and completes the enrollment at 100 %', async () => {
    const course = courseIds[11] as string
    const section = await post(`/api/v1/courses/${course}/sections`, { title: 'S' })
    const lessonIds: string[] = []
    for (const title of ['a', 'b']) {
      const lesson = await post(`/api/v1/sections/${section.id}/lessons`, { title, type: 'text' })
      await call(`/api/v1/lessons/${lesson.id}`, { method: 'PATCH', json: { status: 'published' } })
      lessonIds.push(lesson.id)
    }
    const student = await post('/api/v1/students', { email: 'progress@example.com', name: 'P' })
    const enrollment = await post('/api/v1/enrollments', {
      student_id: student.id,
      course_id: course,
    })
    const completion = (lesson: string) =>
      `/api/v1/enrollments/${enrollment.id}/lessons/${lesson}/completion`
    const half = await readJson(await call(completion(lessonIds[0] as string), { method: 'PUT' }))
    expect(half).toMatchObject({ percent: 50, completed_lessons: 1, total_lessons: 2 })
    await call(completion(lessonIds[1] as string), { method: 'PUT' })
    expect((await readJson(await call(`/api/v1/enrollments/${enrollment.id}`))).status).toBe(
      'completed',
    )
    await call(completion(lessonIds[1] as string), { method: 'DELETE' })
    expect((await readJson(await call(`/api/v1/enrollments/${enrollment.id}`))).status).toBe(
      'active',
    )
    const progress = await readJson(await call(`/api/v1/enrollments/${enrollment.id}/progress`))
    expect(progress.percent).toBe(50)
    const foreign = await call(completion('lsn_elsewhere'), { method: 'PUT' })
    expect(foreign.status).toBe(404)
  })

  it('blocks and unblocks a student; a course with enrollments is not deleted', async () => {
    expect((await post(`/api/v1/students/${studentId}/block`)).status).toBe('blocked')
    expect((await post(`/api/v1/students/${studentId}/unblock`)).status).toBe('active')
    const deleted = await call(`/api/v1/courses/${courseIds[0]}`, { method: 'DELETE' })
    expect(deleted.status).toBe(409)
    expect((await readJson(deleted)).detail).toMatch(/archive/)
  })
})
