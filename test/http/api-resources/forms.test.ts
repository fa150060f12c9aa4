import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { formSubmissions, forms } from '../../../src/api/community/forms.resource.js'
import { useDemoServer } from '../../support/demo.js'
import { createTestClock } from '../../support/grants.js'
import { type Json, readJson } from '../../support/http.js'
import { startTestServer, type TestServer } from '../../support/server.js'
import { issue } from '../../support/token-lifecycle.js'
import { apiClient, checkConventions } from './conventions.js'

let server: TestServer
let read: ReturnType<typeof apiClient>
let anonymous: ReturnType<typeof apiClient>

const QUESTIONS = [
  { key: 'email', label: 'E-mail', type: 'email', required: true, options: [] },
  { key: 'name', label: 'Name', type: 'text', required: false, options: [] },
  { key: 'phone', label: 'Phone', type: 'phone', required: false, options: [] },
  { key: 'about', label: 'About you', type: 'textarea', required: false, options: [] },
  { key: 'level', label: 'Level', type: 'select', required: true, options: ['new', 'pro'] },
  {
    key: 'topics',
    label: 'Topics',
    type: 'multiselect',
    required: false,
    options: ['light', 'color', 'print'],
  },
  { key: 'consent', label: 'I agree', type: 'checkbox', required: true, options: [] },
  { key: 'age', label: 'Age', type: 'number', required: false, options: [] },
  { key: 'start', label: 'Start date', type: 'date', required: false, options: [] },
  { key: 'site', label: 'Website', type: 'url', required: false, options: [] },
]

async function insertForm(id: string, status: 'active' | 'closed', fields = QUESTIONS) {
  const now = Date.now()
  await server.deps.database.db
    .insertInto('forms')
    .values({
      id,
      title: `Form ${id}`,
      type: 'contact',
      status,
      fields: JSON.stringify(fields),
      linked_to: null,
      success_message: 'Thanks, we got it.',
      created_at: now,
      updated_at: now,
    })
    .execute()
  return id
}

let fixtures = 0
async function insertSubmission(formId: string, email: string): Promise<string> {
  fixtures += 1
  const id = `fsub_fixture_${fixtures}`
  const now = Date.now()
  await server.deps.database.db
    .insertInto('form_submissions')
    .values({
      id,
      form_id: formId,
      email,
      name: null,
      student_id: null,
      answers: JSON.stringify({ email }),
      source_url: null,
      utm: null,
      submitted_at: now,
      created_at: now,
      updated_at: now,
    })
    .execute()
  return id
}

const VALID = { email: 'Visitor@Example.com', level: 'new', consent: true }

beforeAll(async () => {
  server = await startTestServer({ env: { PORTICO_FORM_SUBMISSION_RATE_LIMIT: '1000' } })
  read = apiClient(
    server,
    (await issue(server, { role: 'teaching_assistant', scope: 'forms:read' })).accessToken,
  )
  anonymous = apiClient(server)
  await insertForm('frm_contact', 'active')
  await insertForm('frm_closed', 'closed')
  await server.deps.database.db
    .insertInto('students')
    .values({
      id: 'stu_known',
      email: 'known@example.com',
      name: 'Known Learner',
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
})
afterAll(async () => {
  await server?.close()
})

describe('/api/v1/forms: the conventions', () => {
  checkConventions(() => server, {
    resource: forms,
    fixture: (_server, n, publish) => insertForm(`frm_fixture_${n}`, publish ? 'active' : 'closed'),
  })
})

describe('/api/v1/form_submissions: the conventions', () => {
  checkConventions(() => server, {
    resource: formSubmissions,
    fixture: (_server, n) => insertSubmission('frm_closed', `fixture${n}@example.com`),
  })
})

const submit = (id: string, json: unknown, call = anonymous) =>
  call(`/api/v1/forms/${id}/submissions`, { method: 'POST', json })

describe('/api/v1/forms: the public definition', () => {
  it('shows an active form to anyone, without private members; a closed one to nobody', async () => {
    const response = await anonymous('/api/v1/forms/frm_contact')
    expect(response.status).toBe(200)
    expect(response.headers.get('data-visibility')).toBe('public')
    const form = await readJson(response)
    expect(form).toMatchObject({
      id: 'frm_contact',
      object: 'form',
      status: 'active',
      success_message: 'Thanks, we got it.',
    })
    expect(form.fields).toEqual(QUESTIONS)
    expect(form).not.toHaveProperty('submissions_count')
    const closed = await anonymous('/api/v1/forms/frm_closed')
    expect(closed.status).toBe(404)
    const list = await readJson(await anonymous('/api/v1/forms?limit=100'))
    const ids = list.data.map((f: Json) => f.id)
    expect(ids).toContain('frm_contact')
    expect(ids).not.toContain('frm_closed')
    for (const item of list.data) expect(item.status).toBe('active')
    const full = await readJson(await read('/api/v1/forms/frm_closed'))
    expect(full).toMatchObject({ status: 'closed', submissions_count: expect.any(Number) })
  })
})

describe('POST /api/v1/forms/{id}/submissions', () => {
  it('names every invalid answer in a 422', async () => {
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ answers: { level: 'new', consent: true } }, 'answers.email', 'required'],
      [{ answers: { ...VALID, email: 'not-an-address' } }, 'answers.email', 'format'],
      [{ answers: { ...VALID, nope: 'x' } }, 'answers.nope', 'unknown_field'],
      [{ answers: { ...VALID, name: 'x'.repeat(501) } }, 'answers.name', 'too_long'],
      [{ answers: { ...VALID, name: 42 } }, 'answers.name', 'type'],
      [{ answers: { ...VALID, phone: 'call me' } }, 'answers.phone', 'format'],
      [{ answers: { ...VALID, about: 'x'.repeat(5001) } }, 'answers.about', 'too_long'],
      [{ answers: { ...VALID, level: 'guru' } }, 'answers.level', 'enum'],
      [{ answers: { ...VALID, topics: ['light', 'sound'] } }, 'answers.topics', 'enum'],
      [{ answers: { ...VALID, topics: 'light' } }, 'answers.topics', 'type'],
      [{ answers: { ...VALID, consent: false } }, 'answers.consent', 'required'],
      [{ answers: { ...VALID, consent: 'yes' } }, 'answers.consent', 'type'],
      [{ answers: { ...VALID, age: '30' } }, 'answers.age', 'type'],
      [{ answers: { ...VALID, start: '2026-02-30' } }, 'answers.start', 'format'],
      [{ answers: { ...VALID, start: 'tomorrow' } }, 'answers.start', 'format'],
      [{ answers: { ...VALID, site: 'javascript:alert(1)' } }, 'answers.site', 'format'],
      [{ answers: VALID, email: 'nope' }, 'email', 'format'],
      [{ answers: VALID, source_url: 'ftp://x' }, 'source_url', 'format'],
      [{ answers: VALID, utm: { source: 'x', channel: 'y' } }, 'utm.channel', 'unknown_field'],
      [{ answers: VALID, password: 'x' }, 'password', 'unknown_field'],
      [{}, 'answers', 'required'],
      [{ answers: ['x'] }, 'answers', 'type'],
    ]
    for (const [json, field, code] of cases) {
      const response = await submit('frm_contact', json)
      expect(response.status, JSON.stringify(json)).toBe(422)
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/)
      const body = await readJson(response)
      expect(body.code).toBe('validation_failed')
      const error = body.errors.find((e: Json) => e.field === field)
      expect(error, `${field}: ${JSON.stringify(body.errors)}`).toBeDefined()
      expect(error.code).toBe(code)
    }
    const count = await server.deps.database.db
      .selectFrom('form_submissions')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('form_id', '=', 'frm_contact')
      .executeTakeFirstOrThrow()
    expect(Number(count.n)).toBe(0)
  })

  it('refuses a closed or unknown form with 404, a non-JSON body with 415, a huge one with 413', async () => {
    for (const id of ['frm_closed', 'frm_missing']) {
      const response = await submit(id, { answers: VALID })
      expect(response.status).toBe(404)
      expect((await readJson(response)).code).toBe('not_found')
    }
    const form = await anonymous('/api/v1/forms/frm_contact/submissions', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'email=a%40b.example',
    })
    expect(form.status).toBe(415)
    const huge = await submit('frm_contact', {
      answers: { ...VALID, about: 'x'.repeat(40_000) },
    })
    expect(huge.status).toBe(413)
  })

  it('accepts a valid submission, anonymously or with a token, and shows it to forms:read', async () => {
    const response = await submit('frm_contact', {
      answers: {
        ...VALID,
        name: '  Robin  ',
        topics: ['light', 'print', 'light'],
        age: 31,
        start: '2026-03-01',
        site: 'https://robin.example',
        phone: '+1 (555) 010-9999',
        about: '',
      },
      source_url: 'https://brightframe.example/contact',
      utm: { source: 'instagram', medium: 'social', campaign: 'spring' },
    })
    expect(response.status).toBe(201)
    const body = await readJson(response)
    expect(body).toMatchObject({
      object: 'form_submission',
      form_id: 'frm_contact',
      email: 'visitor@example.com',
      name: 'Robin',
      answers: {
        email: 'visitor@example.com',
        name: 'Robin',
        level: 'new',
        consent: true,
        topics: ['light', 'print'],
        age: 31,
        start: '2026-03-01',
        site: 'https://robin.example',
        phone: '+1 (555) 010-9999',
      },
      source_url: 'https://brightframe.example/contact',
      utm: { source: 'instagram', medium: 'social', campaign: 'spring' },
      success_message: 'Thanks, we got it.',
    })
    expect(body.answers).not.toHaveProperty('about')
    expect(body.id).toMatch(/^fsub_/)
    expect(body).not.toHaveProperty('student_id')
    expect(response.headers.get('location')).toBe(
      `${server.issuer}/api/v1/form_submissions/${body.id}`,
    )

    // A known learner's e-mail links the student, without saying so to the submitter.
    const other = await issue(server, { role: 'owner', scope: 'account:read' })
    const known = await submit(
      'frm_contact',
      { answers: { ...VALID, email: 'KNOWN@example.com' } },
      apiClient(server, other.accessToken),
    )
    expect(known.status).toBe(201)
    const knownBody = await readJson(known)
    expect(knownBody).not.toHaveProperty('student_id')

    const stored = await readJson(await read(`/api/v1/form_submissions/${body.id}`))
    expect(stored).toMatchObject({ id: body.id, student_id: null, email: 'visitor@example.com' })
    const linked = await readJson(await read(`/api/v1/form_submissions/${knownBody.id}`))
    expect(linked.student_id).toBe('stu_known')

    const list = await readJson(await read('/api/v1/forms/frm_contact/submissions'))
    expect(list.total_count).toBe(2)
    expect(new Set(list.data.map((s: Json) => s.id))).toEqual(new Set([knownBody.id, body.id]))
    const byEmail = await readJson(
      await read('/api/v1/forms/frm_contact/submissions?email=Visitor@example.com'),
    )
    expect(byEmail.data.map((s: Json) => s.id)).toEqual([body.id])
    const byText = await readJson(await read('/api/v1/forms/frm_contact/submissions?q=robin'))
    expect(byText.data.map((s: Json) => s.id)).toEqual([body.id])
    const later = new Date(Date.now() + 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z')
    const none = await readJson(
      await read(`/api/v1/forms/frm_contact/submissions?submitted_at[gte]=${later}`),
    )
    expect(none.total_count).toBe(0)
    const form = await readJson(await read('/api/v1/forms/frm_contact'))
    expect(form.submissions_count).toBe(2)
  })

  it('lists submissions only with forms:read', async () => {
    const path = '/api/v1/forms/frm_contact/submissions'
    const none = await anonymous(path)
    expect(none.status).toBe(401)
    expect((await readJson(none)).code).toBe('unauthenticated')
    const other = await issue(server, { role: 'owner', scope: 'account:read' })
    const denied = await apiClient(server, other.accessToken)(path)
    expect(denied.status).toBe(403)
    expect((await readJson(denied)).code).toBe('insufficient_scope')
    expect((await read('/api/v1/forms/frm_missing/submissions')).status).toBe(404)
  })
})

describe('POST /api/v1/forms/{id}/submissions: the rate limit', () => {
  let limited: TestServer
  beforeAll(async () => {
    // The limit counts in fixed one-minute windows: a test clock 30 s into one keeps every
    // attempt in it, however slow the machine (a real clock could cross a boundary).
    limited = await startTestServer({
      env: { PORTICO_FORM_SUBMISSION_RATE_LIMIT: '3' },
      clock: createTestClock(Date.UTC(2030, 0, 1, 12, 0, 30)),
    })
    const now = Date.now()
    await limited.deps.database.db
      .insertInto('forms')
      .values({
        id: 'frm_limited',
        title: 'Limited',
        type: 'newsletter',
        status: 'active',
        fields: JSON.stringify([{ key: 'email', label: 'E-mail', type: 'email', required: true }]),
        linked_to: null,
        success_message: null,
        created_at: now,
        updated_at: now,
      })
      .execute()
  })
  afterAll(async () => {
    await limited?.close()
  })

  it('answers 429 with Retry-After past the limit per address, invalid attempts included', async () => {
    const call = apiClient(limited)
    const post = (json: unknown) =>
      call('/api/v1/forms/frm_limited/submissions', { method: 'POST', json })
    expect((await post({ answers: { email: 'a@example.com' } })).status).toBe(201)
    expect((await post({ answers: { email: 'bad' } })).status).toBe(422)
    expect((await post({ answers: { email: 'b@example.com' } })).status).toBe(201)
    const refused = await post({ answers: { email: 'c@example.com' } })
    expect(refused.status).toBe(429)
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0)
    const body = await readJson(refused)
    expect(body.code).toBe('rate_limited')
    // A token does not lift it: the limit is per address.
    const token = await issue(limited, { role: 'owner', scope: 'forms:read' })
    const withToken = await apiClient(limited, token.accessToken)(
      '/api/v1/forms/frm_limited/submissions',
      { method: 'POST', json: { answers: { email: 'd@example.com' } } },
    )
    expect(withToken.status).toBe(429)
    // Reading is not limited by it.
    const list = await apiClient(
      limited,
      token.accessToken,
    )('/api/v1/forms/frm_limited/submissions')
    expect((await readJson(list)).total_count).toBe(2)
  })
})

describe('/api/v1/forms: the demo school', () => {
  const demo = useDemoServer()

  it('has the newsletter and portfolio review forms with their submissions', async () => {
    const { accessToken } = await issue(demo(), { role: 'owner', scope: 'forms:read' })
    const call = apiClient(demo(), accessToken)
    const newsletter = await readJson(await call('/api/v1/forms/frm_demo_newsletter'))
    expect(newsletter).toMatchObject({
      type: 'newsletter',
      status: 'active',
      submissions_count: 18,
    })
    expect(newsletter.fields.map((f: Json) => f.key)).toEqual(['email', 'name'])
    const review = await readJson(await call('/api/v1/forms/frm_demo_portfolio_review'))
    expect(review).toMatchObject({ type: 'application', status: 'active', submissions_count: 5 })
    expect(review.fields.map((f: Json) => f.type)).toEqual([
      'text',
      'email',
      'url',
      'select',
      'textarea',
    ])
    const signups = await readJson(
      await call('/api/v1/forms/frm_demo_newsletter/submissions?limit=100'),
    )
    expect(signups.total_count).toBe(18)
    for (const signup of signups.data) expect(signup.utm.source).toEqual(expect.any(String))
    expect(signups.data.filter((s: Json) => s.student_id).length).toBeGreaterThan(0)
    const students = await readJson(
      await apiClient(
        demo(),
        (await issue(demo(), { role: 'owner', scope: 'students:read' })).accessToken,
      )('/api/v1/students?limit=100'),
    )
    const emails = new Map(students.data.map((s: Json) => [s.id, s.email]))
    for (const signup of signups.data)
      if (signup.student_id) expect(emails.get(signup.student_id)).toBe(signup.email)
    const applications = await readJson(
      await call('/api/v1/forms/frm_demo_portfolio_review/submissions'),
    )
    expect(applications.total_count).toBe(5)
    expect(applications.data.some((s: Json) => s.student_id)).toBe(true)
    // The public renders the active forms; the closed survey stays private.
    expect((await demo().fetch('/api/v1/forms/frm_demo_newsletter')).status).toBe(200)
    expect((await demo().fetch('/api/v1/forms/frm_demo_topics_survey')).status).toBe(404)
  })
})
