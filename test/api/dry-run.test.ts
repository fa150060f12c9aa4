import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Caller } from '../../src/api/caller.js'
import { courses } from '../../src/api/catalogue/courses.resource.js'
import type {
  ApiOperation,
  OperationInput,
  OperationResult,
} from '../../src/api/framework/operation.js'
import { resourceOperations } from '../../src/api/framework/resource-operations.js'
import { ProblemError } from '../../src/api/problem.js'
import type { AppDeps } from '../../src/app-deps.js'
import type { TestDatabase } from '../support/databases.js'
import { ownerCaller, prepareDeps } from '../support/operation-deps.js'

// Dry runs of resource writes: the write is carried out in its transaction, which is then
// rolled back; the answer says what would have been, and nothing is kept.

let database: TestDatabase
let deps: AppDeps
let operations: Map<string, ApiOperation>
let owner: Caller

beforeAll(async () => {
  ;({ database, deps } = await prepareDeps())
  operations = new Map(resourceOperations(courses, deps).map((o) => [o.name, o]))
  owner = await ownerCaller(deps, ['courses:read', 'courses:write'])
})

afterAll(async () => {
  await deps?.database.close()
  await database?.drop()
})

const run = (name: string, input: Partial<OperationInput>): Promise<OperationResult> => {
  const operation = operations.get(name)
  if (!operation) throw new Error(`no operation ${name}`)
  return operation.run({ caller: owner, params: {}, query: {}, ...input })
}
const bodyOf = (result: OperationResult) =>
  (result.json !== undefined ? JSON.parse(result.json) : result.body) as Record<string, unknown>
const json = 'application/json'
const course = (title: string) => ({
  title,
  pricing_plans: [{ name: 'Free', type: 'free', price: { amount: 0, currency: 'USD' } }],
})
const count = async () =>
  bodyOf(await run('courses.list', { query: { limit: '1' } })).total_count as number

describe('dry runs of resource writes', () => {
  it('are offered by every resource write, and by no read', () => {
    for (const operation of operations.values())
      expect(operation.dryRun === true).toBe(operation.effect !== 'read')
  })

  it('create: answers the record that would be made, and makes none', async () => {
    const before = await count()
    const result = await run('courses.create', {
      body: course('Rehearsed'),
      contentType: json,
      dryRun: true,
      idempotencyKey: 'dry-1',
    })
    expect(result.status).toBe(201)
    expect(result.headers?.['dry-run']).toBe('true')
    expect(result.location).toBeUndefined()
    expect(bodyOf(result)).toMatchObject({
      object: 'course',
      title: 'Rehearsed',
      slug: 'rehearsed',
    })
    expect(await count()).toBe(before)
    // The key was not used up: the real create under it makes the course.
    const real = await run('courses.create', {
      body: course('Rehearsed'),
      contentType: json,
      idempotencyKey: 'dry-1',
    })
    expect(real.status).toBe(201)
    expect(real.headers?.['idempotent-replayed']).toBeUndefined()
    expect(await count()).toBe(before + 1)
  })

  it('create: refuses what the real call refuses (validation), with the same problem', async () => {
    const error = await run('courses.create', {
      body: { title: '' },
      contentType: json,
      dryRun: true,
    }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ProblemError)
    expect((error as ProblemError).status).toBe(422)
  })

  it('update and action: answer the record after the change, and keep the old one', async () => {
    const id = String(
      bodyOf(await run('courses.create', { body: course('Before'), contentType: json })).id,
    )
    const update = await run('courses.update', {
      params: { id },
      body: { title: 'After' },
      contentType: json,
      dryRun: true,
    })
    expect(bodyOf(update)).toMatchObject({ id, title: 'After' })
    const publish = await run('courses.publish', { params: { id }, dryRun: true })
    expect(bodyOf(publish)).toMatchObject({ id, status: 'published' })
    expect(bodyOf(await run('courses.get', { params: { id } }))).toMatchObject({
      title: 'Before',
      status: 'draft',
    })
  })

  it('delete: answers the record it would remove, runs the checks, removes nothing', async () => {
    const id = String(
      bodyOf(await run('courses.create', { body: course('Kept'), contentType: json })).id,
    )
    const result = await run('courses.delete', { params: { id }, dryRun: true })
    expect(result.status).toBe(200)
    expect(bodyOf(result)).toMatchObject({ id, title: 'Kept' })
    expect((await run('courses.get', { params: { id } })).status).toBe(200)
    // A published course cannot be deleted: the dry run says so as the real delete would.
    await run('courses.publish', { params: { id } })
    const refused = await run('courses.delete', { params: { id }, dryRun: true }).catch(
      (e: unknown) => e,
    )
    expect((refused as ProblemError).status).toBe(409)
  })
})
