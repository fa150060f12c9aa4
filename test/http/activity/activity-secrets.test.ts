import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import type { Caller } from '../../../src/api/caller.js'
import type { ApiOperation } from '../../../src/api/framework/operation.js'
import { RESOURCES } from '../../../src/api/registry.js'
import { apiOperations } from '../../../src/http/api-routes.js'
import { ALL_SCOPES } from '../../../src/oauth/scopes.js'
import type { Db } from '../../../src/storage/schema.js'
import { useDemoServer } from '../../support/demo.js'
import { tinyPng } from '../../support/files.js'
import { issue } from '../../support/token-lifecycle.js'

// Nothing secret ever reaches the activity record: every write of every resource and
// endpoint is called with a secret-looking value in each of its string members (one at a
// time, then all together), and the stored records are searched for it.

const server = useDemoServer()

const MARKER = `sKlive${randomBytes(6).toString('hex')}`
type Schema = Record<string, unknown>
/** An operation's answer as one JSON text, however it was given. */
const textOf = (result: { json?: string; body?: unknown }) =>
  JSON.stringify(result.json !== undefined ? JSON.parse(result.json) : result.body)

/** The table whose records a path parameter of an operation names. */
function tableOf(operation: ApiOperation, param: string): string | undefined {
  const collection = operation.name.split('.')[0] ?? ''
  const special: Record<string, string> = {
    'event_attendees:id': 'events',
    'storage:id': 'files',
    'form_submissions:form_id': 'forms',
    ':attendee_id': 'event_attendees',
  }
  const named = special[`${collection}:${param}`] ?? special[`:${param}`]
  if (named) return named
  if (param === 'id') return RESOURCES.find((r) => r.collection === collection)?.table
  const object = param.replace(/_id$/, '')
  return RESOURCES.find((r) => r.object === object)?.table
}

/** A secret-looking value that a string member of this schema might accept. */
function secretFor(schema: Schema): string | undefined {
  const types = Array.isArray(schema.type) ? schema.type : [schema.type]
  if (!types.includes('string') || schema.enum || schema.const !== undefined) return undefined
  if (schema.format === 'date-time' || schema.format === 'binary') return undefined
  if (schema.format === 'email') return `${MARKER.toLowerCase()}@example.com`
  if (schema.format === 'uri') return `https://example.com/${MARKER}`
  if (schema.pattern) return `sk-${MARKER.toLowerCase()}`
  return `password=${MARKER}`
}

/** An owner's token with every scope, as the caller operations are run with directly. */
async function ownerCaller() {
  const { deps } = server()
  const issued = await issue(server(), { role: 'owner', scope: ALL_SCOPES.join(' ') })
  const owner = await deps.users.findById(issued.person.user.id)
  if (!owner) throw new Error('no owner')
  const caller: Caller = {
    kind: 'token',
    user: owner,
    clientId: issued.client.clientId,
    grantId: issued.grantId,
    scopes: new Set(ALL_SCOPES),
  }
  return { deps, db: deps.database.db as Db, caller }
}

describe('the activity record keeps no secret', () => {
  it('after every write with a secret-looking value in every string member', async () => {
    const { deps, db, caller } = await ownerCaller()
    const operations = apiOperations(deps)
    const writes = operations.filter((o) => o.effect !== 'read')
    /** The record an operation names, as its collection's get answers it (if it has one). */
    const current = async (operation: ApiOperation, params: Record<string, string>) => {
      const get = operations.find((o) => o.name === `${operation.name.split('.')[0]}.get`)
      const result = await get?.run({ caller, params, query: {} }).catch(() => undefined)
      return result && textOf(result)
    }
    let succeeded = 0
    const written = new Set<string>()
    const attempt = async (
      operation: ApiOperation,
      params: Record<string, string>,
      body: Schema | undefined,
    ) => {
      try {
        const before = await current(operation, params)
        const result = await operation.run({
          caller,
          params,
          query: {},
          ...(body !== undefined && { body, contentType: 'application/json' }),
        })
        // An action that found the record already so (published again) changed nothing.
        if (result.status < 300 && (before === undefined || textOf(result) !== before)) {
          succeeded += 1
          written.add(operation.name)
        }
      } catch {
        // Refused: nothing to record, which the search below checks all the same.
      }
    }
    // The records each write names, chosen from the demo before any write (a record the walk
    // made would already hold the values written to it: no change).
    const paramsOf = new Map<string, Record<string, string>>()
    for (const operation of writes) {
      const params: Record<string, string> = {}
      for (const [, name] of operation.path.matchAll(/:(\w+)/g)) {
        const table = tableOf(operation, name ?? '')
        const row = table
          ? await (db as unknown as import('kysely').Kysely<Record<string, { id: string }>>)
              .selectFrom(table)
              .select('id')
              .limit(1)
              .executeTakeFirst()
          : undefined
        params[name ?? ''] = row?.id ?? 'none'
      }
      paramsOf.set(operation.name, params)
    }
    for (const operation of writes) {
      if (operation.name === 'storage.upload' || operation.effect === 'delete') continue
      const params = paramsOf.get(operation.name) ?? {}
      const body = (operation.inputSchema.properties as Schema | undefined)?.body as
        | Schema
        | undefined
      const members = Object.entries((body?.properties as Record<string, Schema>) ?? {})
        .map(([name, schema]) => [name, secretFor(schema)] as const)
        .filter((m): m is readonly [string, string] => m[1] !== undefined)
      // A write without string members (an action, a completion) runs once as it is.
      if (members.length === 0) await attempt(operation, params, undefined)
      for (const [name, value] of members) await attempt(operation, params, { [name]: value })
      await attempt(operation, params, Object.fromEntries(members))
    }
    // Deletes last, so that the writes above found their records.
    for (const operation of writes)
      if (operation.effect === 'delete')
        await attempt(operation, paramsOf.get(operation.name) ?? {}, undefined)
    // An upload under a secret-looking file name.
    const upload = writes.find((o) => o.name === 'storage.upload')
    const uploaded = await upload?.run({
      caller,
      params: {},
      query: { purpose: 'avatar', filename: `${MARKER}.png` },
      body: tinyPng(2, 2, [1, 2, 3]),
      contentType: 'image/png',
    })
    expect(uploaded?.status).toBe(201)

    // The walk wrote plenty (it is no walk of refusals only) …
    expect(succeeded).toBeGreaterThan(30)
    const rows = await db
      .selectFrom('activity')
      .selectAll()
      .where('client_id', '=', caller.clientId)
      .execute()
    expect(rows.length).toBeGreaterThan(30)
    // … of free text that was stored in the records, and named, not copied, in the activity.
    expect(JSON.stringify(rows).toLowerCase()).not.toContain(MARKER.toLowerCase())
    // Every operation that wrote left a record under its own name (the upload included).
    const recorded = new Set(rows.map((r) => r.operation))
    expect([...written, 'storage.upload'].filter((name) => !recorded.has(name))).toEqual([])
  }, 120_000)

  it('every hand-written write records its change, in its operation’s name', async () => {
    const { deps, db, caller } = await ownerCaller()
    const operations = apiOperations(deps)
    const run = async (name: string, params: Record<string, string>, body?: unknown) => {
      const operation = operations.find((o) => o.name === name)
      const result = await operation?.run({
        caller,
        params,
        query: {},
        ...(body !== undefined && { body, contentType: 'application/json' }),
      })
      expect(result?.status, name).toBeLessThan(300)
      return result?.json !== undefined ? JSON.parse(result.json) : result?.body
    }
    const records = async (operation: string) =>
      db
        .selectFrom('activity')
        .selectAll()
        .where('client_id', '=', caller.clientId)
        .where('operation', '=', operation)
        .execute()

    // Attendees: added by hand, checked in, removed.
    const event = await db
      .selectFrom('events')
      .select('id')
      .where('status', '=', 'published')
      .executeTakeFirstOrThrow()
    const added = await run(
      'event_attendees.add',
      { id: event.id },
      { email: 'walk-in@example.com', name: 'Walk In' },
    )
    await run(
      'event_attendees.update',
      { id: event.id, attendee_id: added.id },
      { status: 'checked_in' },
    )
    await run('event_attendees.remove', { id: event.id, attendee_id: added.id })
    expect((await records('event_attendees.update'))[0]?.changes).toBe(
      JSON.stringify([{ field: 'status', before: 'registered', after: 'checked_in' }]),
    )
    for (const name of ['event_attendees.add', 'event_attendees.remove'])
      expect(await records(name)).toHaveLength(1)

    // Lesson progress: marked incomplete, then complete (one of them changes something).
    const enrollment = await db
      .selectFrom('enrollments')
      .select(['id', 'course_id'])
      .executeTakeFirstOrThrow()
    const lesson = await db
      .selectFrom('lessons')
      .select('id')
      .where('course_id', '=', enrollment.course_id)
      .executeTakeFirstOrThrow()
    const progress = { id: enrollment.id, lesson_id: lesson.id }
    await run('enrollments.uncomplete_lesson', progress)
    await run('enrollments.complete_lesson', progress)
    const [completed] = await records('enrollments.complete_lesson')
    expect(completed).toMatchObject({ record_type: 'enrollment', record_id: enrollment.id })

    // The curriculum of a course, reordered (here: in the order it has).
    const tree = await run('curriculum.get', { course_id: enrollment.course_id })
    await run(
      'curriculum.reorder',
      { course_id: enrollment.course_id },
      {
        sections: tree.sections.map((s: { id: string; lessons: Array<{ id: string }> }) => ({
          id: s.id,
          lesson_ids: s.lessons.map((l) => l.id),
        })),
      },
    )
    expect(await records('curriculum.reorder')).toHaveLength(1)

    // A file uploaded, then deleted.
    const upload = operations.find((o) => o.name === 'storage.upload')
    const file = await upload?.run({
      caller,
      params: {},
      query: { purpose: 'avatar' },
      body: tinyPng(2, 2, [9, 9, 9]),
      contentType: 'image/png',
    })
    const fileId = (file?.body as { id?: string } | undefined)?.id ?? 'none'
    await run('storage.delete', { id: fileId })
    expect(await records('storage.delete')).toHaveLength(1)

    // A form submitted with a token, a secret-looking text in its answers.
    const form = await db
      .selectFrom('forms')
      .select(['id', 'fields'])
      .where('status', '=', 'active')
      .executeTakeFirstOrThrow()
    const questions = JSON.parse(form.fields) as Array<{
      key: string
      type: string
      options?: string[]
    }>
    const answerTo = (q: (typeof questions)[number]): unknown =>
      ({
        email: 'walk-in@example.com',
        phone: '+1 555 0100',
        url: 'https://example.com',
        number: 1,
        date: '2026-01-01',
        checkbox: true,
        select: q.options?.[0],
        multiselect: q.options?.slice(0, 1),
      })[q.type] ?? `password=${MARKER}`
    await run(
      'form_submissions.submit',
      { form_id: form.id },
      { answers: Object.fromEntries(questions.map((q) => [q.key, answerTo(q)])) },
    )
    const [submitted] = await records('form_submissions.submit')
    expect(submitted?.changes).toBe(
      JSON.stringify([{ field: 'form_id', after: form.id }, { field: 'answers' }]),
    )
    const all = await db.selectFrom('activity').selectAll().execute()
    expect(JSON.stringify(all).toLowerCase()).not.toContain(MARKER.toLowerCase())
  })
})
