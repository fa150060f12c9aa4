import { expect } from 'vitest'
import type { Browser, TestPerson } from '../../support/flow.js'
import { formField } from '../../support/flow.js'
import { type Json, readJson } from '../../support/http.js'
import type { TestServer } from '../../support/server.js'
import { callApi, signIn } from '../../support/token-lifecycle.js'

/** Helpers of the approval tests (issue 35): calls with a token, and the approval page. */

export const COURSES = 'courses:read courses:write'
export const PLAN = {
  name: 'Full access',
  type: 'one_time',
  price: { amount: 4900, currency: 'USD' },
}

/** Calls the API with a token and a JSON body. */
export function call(
  server: TestServer,
  token: string,
  path: string,
  method = 'GET',
  json?: unknown,
): Promise<Response> {
  return callApi(server, path, {
    token,
    init: {
      method,
      ...(json !== undefined && {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(json),
      }),
    },
  })
}

/** A new course (a draft, or published), made with `token`. */
export async function newCourse(
  server: TestServer,
  token: string,
  title: string,
  published = false,
): Promise<Json> {
  const created = await call(server, token, '/api/v1/courses', 'POST', {
    title,
    pricing_plans: [PLAN],
  })
  expect(created.status).toBe(201)
  const course = await readJson(created)
  if (published) {
    const publish = await call(server, token, `/api/v1/courses/${course.id}/publish`, 'POST')
    expect(publish.status).toBe(200)
  }
  return course
}

/** Expects a 403 `approval_required` and answers its problem. */
export async function expectHeld(server: TestServer, response: Response): Promise<Json> {
  expect(response.status).toBe(403)
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/)
  const problem = await readJson(response)
  expect(problem.code).toBe('approval_required')
  expect(problem.approval_id).toMatch(/^apr_[A-Za-z0-9_-]+$/)
  expect(problem.approval_url).toBe(`${server.issuer}/approvals/${problem.approval_id}`)
  expect(Number.isNaN(Date.parse(problem.expires_at))).toBe(false)
  return problem
}

/** The approval page's path, from the problem's absolute URL. */
export const pageOf = (server: TestServer, problem: Json): string =>
  String(problem.approval_url).slice(server.issuer.length)

/** Signs `person` in and answers the approval page: `approve` or `refuse`. */
export async function decide(
  server: TestServer,
  person: TestPerson | Browser,
  problem: Json,
  decision: 'approve' | 'refuse',
): Promise<Browser> {
  const browser = 'request' in person ? person : await signIn(server, person)
  const path = pageOf(server, problem)
  const page = await browser.request(path)
  expect(page.status).toBe(200)
  const text = await page.text()
  const posted = await browser.post(path, { csrf: formField(text, 'csrf') ?? '', decision })
  expect(posted.status).toBe(303)
  expect(posted.headers.get('location')).toBe(path)
  return browser
}
