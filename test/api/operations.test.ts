import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { analyticsEndpoints } from '../../src/api/analytics/analytics-area.js'
import type { Caller } from '../../src/api/caller.js'
import { courses } from '../../src/api/catalogue/courses.resource.js'
import { curriculumEndpoints } from '../../src/api/catalogue/curriculum.js'
import { formSubmissionEndpoint } from '../../src/api/community/form-submission-endpoint.js'
import { etagOf, etagOfJson } from '../../src/api/conventions.js'
import type {
  ApiOperation,
  OperationInput,
  OperationResult,
} from '../../src/api/framework/operation.js'
import { resourceOperations } from '../../src/api/framework/resource-operations.js'
import { accountEndpoints } from '../../src/api/people/own-account-endpoints.js'
import { progressEndpoints } from '../../src/api/people/progress.js'
import { ProblemError } from '../../src/api/problem.js'
import type { AppDeps } from '../../src/app-deps.js'
import type { TestDatabase } from '../support/databases.js'
import { ownerCaller, prepareDeps } from '../support/operation-deps.js'

// The framework's operations without a server: a caller and an input in, a result out.

let database: TestDatabase
let deps: AppDeps
let operations: Map<string, ApiOperation>
let owner: Caller

beforeAll(async () => {
  ;({ database, deps } = await prepareDeps())
  operations = new Map(
    [
      ...resourceOperations(courses, deps),
      ...[
        ...accountEndpoints,
        ...progressEndpoints,
        ...analyticsEndpoints,
        ...curriculumEndpoints,
        formSubmissionEndpoint,
      ].map((endpoint) => endpoint.bind(deps)),
    ].map((operation) => [operation.name, operation]),
  )
  owner = await ownerCaller(deps, [
    'courses:read',
    'courses:write',
    'account:read',
    'account:write',
  ])
})

afterAll(async () => {
  await deps?.database.close()
  await database?.drop()
})

const run = (name: string, input: Partial<OperationInput>): Promise<OperationResult> => {
  const operation = operations.get(name)
  if (!operation) throw new Error(`no operation ${name}`)
  return operation.run({ caller: { kind: 'anonymous' }, params: {}, query: {}, ...input })
}
const bodyOf = (result: OperationResult) =>
  (result.json !== undefined ? JSON.parse(result.json) : result.body) as Record<string, unknown>
const problemOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => (error instanceof ProblemError ? error : undefined),
  )
const course = {
  title: 'Operations without a server',
  pricing_plans: [{ name: 'Free', type: 'free', price: { amount: 0, currency: 'USD' } }],
}
const json = 'application/json'

describe('resource operations', () => {
  it('names each operation <collection>.<operation> at its Fastify path', () => {
    const named = [...operations.values()].filter((o) => o.name.startsWith('courses.'))
    expect(named.map((o) => `${o.name} ${o.method} ${o.path}`)).toEqual(
      expect.arrayContaining([
        'courses.list GET /api/v1/courses',
        'courses.create POST /api/v1/courses',
        'courses.get GET /api/v1/courses/:id',
        'courses.update PATCH /api/v1/courses/:id',
        'courses.delete DELETE /api/v1/courses/:id',
        'courses.publish POST /api/v1/courses/:id/publish',
      ]),
    )
    const create = operations.get('courses.create')
    expect(create?.scope).toBe('courses:write')
    expect(create?.effect).toBe('write')
    expect(create?.inputSchema).toMatchObject({ required: ['body'] })
    expect(operations.get('courses.get')?.inputSchema).toMatchObject({
      properties: { params: { required: ['id'] } },
    })
    expect(operations.get('courses.list')?.public).toBe(true)
  })

  it('creates, gets and lists a course as a caller: status, body, ETag, Location', async () => {
    const created = await run('courses.create', { caller: owner, body: course, contentType: json })
    expect(created.status).toBe(201)
    const record = bodyOf(created)
    expect(record).toMatchObject({ object: 'course', title: course.title, status: 'draft' })
    expect(created.etag).toBe(etagOf(record))
    expect(created.location).toBe(`https://school.example/api/v1/courses/${record.id}`)
    expect(created.headers?.['data-visibility']).toBe('full')

    const read = await run('courses.get', { caller: owner, params: { id: String(record.id) } })
    expect(read.status).toBe(200)
    expect(bodyOf(read)).toEqual(record)
    expect(read.etag).toBe(etagOfJson(read.json ?? ''))
    expect(read.etag).toBe(created.etag)

    const listed = await run('courses.list', { caller: owner, query: { limit: '5' } })
    expect(listed.status).toBe(200)
    expect(bodyOf(listed)).toMatchObject({ object: 'list', total_count: 1, has_more: false })
    expect((bodyOf(listed).data as unknown[])[0]).toEqual(record)
  })

  it('shows anonymous callers the public projection only, and a draft not at all', async () => {
    const record = bodyOf(
      await run('courses.create', { caller: owner, body: course, contentType: json }),
    )
    const id = String(record.id)
    expect((await problemOf(run('courses.get', { params: { id } })))?.status).toBe(404)
    await run('courses.publish', { caller: owner, params: { id } })
    const read = await run('courses.get', { params: { id } })
    expect(read.headers?.['data-visibility']).toBe('public')
    expect(bodyOf(read).title).toBe(course.title)
  })

  it('refuses a stale If-Match with 412 and replays an Idempotency-Key', async () => {
    const first = await run('courses.create', {
      caller: owner,
      body: course,
      contentType: json,
      idempotencyKey: 'k-1',
    })
    const again = await run('courses.create', {
      caller: owner,
      body: course,
      contentType: json,
      idempotencyKey: 'k-1',
    })
    expect(bodyOf(again).id).toBe(bodyOf(first).id)
    expect(again.headers?.['idempotent-replayed']).toBe('true')
    const id = String(bodyOf(first).id)
    const stale = run('courses.update', {
      caller: owner,
      params: { id },
      body: { title: 'Renamed' },
      contentType: json,
      ifMatch: '"stale"',
    })
    expect((await problemOf(stale))?.status).toBe(412)
    const write = run('courses.update', { caller: owner, params: { id }, body: { title: 'x' } })
    expect((await problemOf(write))?.status).toBe(415)
  })
})

describe('endpoints declared with defineEndpoint', () => {
  it('checks the scope before running: 401 anonymous, 403 without it', async () => {
    const params = { id: 'enr_none' }
    expect((await problemOf(run('enrollments.progress', { params })))?.status).toBe(401)
    const progress = run('enrollments.progress', { caller: owner, params })
    expect((await problemOf(progress))?.fields.code).toBe('insufficient_scope')
  })

  it('validates the body from the same members it documents', async () => {
    const update = operations.get('account.update')
    const documented = update?.openapi.requestBody as { content: Record<string, unknown> }
    const input = update?.inputSchema.properties as Record<string, unknown> | undefined
    expect(documented.content[json]).toEqual({ schema: input?.body })
    const refused = await problemOf(
      run('account.update', {
        caller: owner,
        body: { email: 'x@example.com', name: ' ', timezone: 'Nowhere/City' },
        contentType: json,
      }),
    )
    expect(refused?.status).toBe(422)
    expect(refused?.fields.errors?.map((e) => `${e.field} ${e.code}`)).toEqual([
      'email unknown_field',
      'name required',
      'timezone invalid_timezone',
    ])
    const changed = await run('account.update', {
      caller: owner,
      body: { name: ' Olive ', notification_preferences: { new_student: true } },
      contentType: json,
    })
    expect(bodyOf(changed)).toMatchObject({
      name: 'Olive',
      notification_preferences: { new_student: true, new_order: true },
    })
    expect(changed.etag).toBe(etagOf(bodyOf(changed)))
  })

  it('checks the query from its members; a report answers a refused one 400 invalid_request', async () => {
    const analyst = { ...owner, scopes: new Set(['analytics:read']) } as Caller
    const products = operations.get('analytics.products')
    const parameters = products?.openapi.parameters as Array<Record<string, unknown>>
    expect(parameters.find((p) => p.name === 'limit')).toMatchObject({
      in: 'query',
      required: false,
      schema: { type: 'integer', minimum: 1, maximum: 200, default: 20 },
    })
    const query = { limit: '0', sort: '-price', colour: 'red', from: ['2026-01-01', '2026-01-02'] }
    const refused = await problemOf(run('analytics.products', { caller: analyst, query }))
    expect([refused?.status, refused?.fields.code]).toEqual([400, 'invalid_request'])
    expect(refused?.fields.errors?.map((e) => `${e.field} ${e.code}`)).toEqual([
      'limit range',
      'sort unknown_sort',
      'colour unknown_parameter',
      'from repeated',
    ])
    const backwards = { from: '2026-03-02', to: '2026-03-01', product_type: 'event' }
    const range = await problemOf(run('analytics.products', { caller: analyst, query: backwards }))
    expect(range?.fields.errors?.map((e) => `${e.field} ${e.code}`)).toEqual(['from invalid_range'])
    const listed = await run('analytics.products', { caller: analyst, query: { limit: '5' } })
    expect(bodyOf(listed)).toMatchObject({ object: 'list', data: [] })
  })

  it('runs `before` ahead of the input: the role rule, and a rate limit counting every attempt', async () => {
    const token = owner as Extract<Caller, { kind: 'token' }>
    const student = { ...token, user: { ...token.user, role: 'student' } } as Caller
    const reorder = run('curriculum.reorder', {
      caller: { ...student, scopes: new Set(['curriculum:write']) } as Caller,
      params: { course_id: 'crs_none' },
      contentType: 'text/plain',
    })
    expect((await problemOf(reorder))?.fields.code).toBe('forbidden_role')
    const attempts: Array<number | undefined> = []
    for (let i = 0; i <= deps.config.formSubmissionRateLimit; i++) {
      const submit = run('form_submissions.submit', {
        params: { form_id: 'frm_none' },
        clientAddress: '192.0.2.7',
        contentType: 'text/plain',
      })
      attempts.push((await problemOf(submit))?.status)
    }
    expect(attempts.at(0)).toBe(415)
    expect(attempts.at(-1)).toBe(429)
  })
})
