import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import type { Change } from '../../../src/api/activity/changes.js'
import { keepingOf } from '../../../src/api/activity/declarations.js'
import type { Caller } from '../../../src/api/caller.js'
import { SHORT_TEXT } from '../../../src/api/framework/fields.js'
import type { ApiOperation } from '../../../src/api/framework/operation.js'
import { apiOperations } from '../../../src/api/operations.js'
import { RESOURCES } from '../../../src/api/registry.js'
import { ALL_SCOPES } from '../../../src/oauth/scopes.js'
import type { Db } from '../../../src/storage/schema.js'
import { useDemoServer } from '../../support/demo.js'
import { tinyPng } from '../../support/files.js'
import { issue } from '../../support/token-lifecycle.js'

// Nothing secret ever reaches the activity record (issues 21 and 36): every write of every
// resource and endpoint is called with a secret-looking value in each of its string members
// (one at a time, then all together), each value marked for its operation and member, and
// the stored records are searched for them. A value may be there only as the before or
// after of a field its declaration keeps as short text; never one of a field declared name
// only (long or rich text, links, addresses, anything secret-like). The declarations drive
// it: a new field, or a new operation, is walked without a line here.

const server = useDemoServer()

const MARKER = `sKlive${randomBytes(6).toString('hex')}`
type Schema = Record<string, unknown>
/** An operation's answer as one JSON text, however it was given. */
const textOf = (result: { json?: string; body?: unknown }) =>
  JSON.stringify(result.json !== undefined ? JSON.parse(result.json) : result.body)

/** Where each marked value was written: `operation member`. */
const marked = new Map<string, string>()
/** A marker of its own for a value written to `member` of `operation` (none is another's prefix). */
function markerFor(operation: string, member: string): string {
  const marker = `${MARKER}q${String(marked.size).padStart(4, '0')}z`
  marked.set(marker.toLowerCase(), `${operation} ${member}`)
  return marker
}
/** The markers in a text (compared without case: codes are stored upper-case, e-mails lower). */
const markersIn = (text: string) =>
  [...text.toLowerCase().matchAll(new RegExp(`${MARKER.toLowerCase()}q\\d{4}z`, 'g'))].map(
    (m) => m[0],
  )

/**
 * How the record keeps what a member of an operation's body writes, as declared: the field of
 * the same name of the record a create or update writes; undefined for other bodies (actions'
 * inputs, hand-written endpoints), whose values must not be kept at all.
 */
function declaredKeeping(operation: ApiOperation, member: string) {
  const [collection, action] = operation.name.split('.')
  if (action !== 'create' && action !== 'update') return undefined
  const type = RESOURCES.find((r) => r.collection === collection)?.object ?? collection ?? null
  return keepingOf(type, member)
}

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

/** A secret-looking value, marked, that a string member of this schema might accept. */
function secretFor(schema: Schema, marker: string): string | undefined {
  const types = Array.isArray(schema.type) ? schema.type : [schema.type]
  if (!types.includes('string') || schema.enum || schema.const !== undefined) return undefined
  if (schema.format === 'date-time' || schema.format === 'binary') return undefined
  if (schema.format === 'email') return `${marker.toLowerCase()}@example.com`
  if (schema.format === 'uri') return `https://example.com/${marker}`
  if (schema.pattern) return `sk-${marker.toLowerCase()}`
  return `password=${marker}`
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
    /** The markers of writes of one member that changed their record, by how it is declared. */
    const writtenAs = { text: new Set<string>(), name: new Set<string>() }
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
          const [member, value] = Object.entries(body ?? {})[0] ?? []
          const keeping = member === undefined ? undefined : declaredKeeping(operation, member)
          if (Object.keys(body ?? {}).length === 1 && typeof value === 'string')
            for (const marker of markersIn(value))
              if (keeping === 'text' || keeping === 'name') writtenAs[keeping].add(marker)
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
      const valuesOf = (round: string) =>
        members
          .map(
            ([name, schema]) =>
              [name, secretFor(schema, markerFor(operation.name, `${name}${round}`))] as const,
          )
          .filter((m): m is readonly [string, string] => m[1] !== undefined)
      const single = valuesOf('')
      // A write without string members (an action, a completion) runs once as it is.
      if (single.length === 0) await attempt(operation, params, undefined)
      for (const [name, value] of single) await attempt(operation, params, { [name]: value })
      await attempt(operation, params, Object.fromEntries(valuesOf(' (all)')))
    }
    // A coupon of the walk's own, its code (a secret of sorts) changed: the demo's coupons
    // were redeemed, which freezes their codes.
    const coupon = await operations
      .find((o) => o.name === 'coupons.create')
      ?.run({
        caller,
        params: {},
        query: {},
        body: {
          code: `sk-${markerFor('coupons.create', 'code')}`,
          discount: { type: 'percent', percent_off: 10 },
        },
        contentType: 'application/json',
      })
    expect(coupon?.status).toBe(201)
    const couponId = coupon ? (JSON.parse(textOf(coupon)) as { id: string }).id : 'none'
    const recoded = markerFor('coupons.update', 'code')
    const couponUpdate = writes.find((o) => o.name === 'coupons.update')
    if (couponUpdate) await attempt(couponUpdate, { id: couponId }, { code: `sk-${recoded}` })
    expect(writtenAs.name).toContain(recoded.toLowerCase())
    // Deletes last, so that the writes above found their records.
    for (const operation of writes)
      if (operation.effect === 'delete')
        await attempt(operation, paramsOf.get(operation.name) ?? {}, undefined)
    // An upload under a secret-looking file name.
    const upload = writes.find((o) => o.name === 'storage.upload')
    const uploaded = await upload?.run({
      caller,
      params: {},
      query: { purpose: 'avatar', filename: `${markerFor('storage.upload', 'filename')}.png` },
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
    // … and the values kept are those of short text, at most 200 characters each: taken out,
    // no marked value is left anywhere in the records.
    const kept = new Set<string>()
    const rest = rows.map((row) => {
      const changes = (JSON.parse(row.changes) as Change[]).map((change) => {
        if (keepingOf(row.record_type, change.field) !== 'text') return change
        for (const value of [change.before, change.after]) {
          if (typeof value !== 'string') continue
          expect(value.length, `${row.operation} ${change.field}`).toBeLessThanOrEqual(SHORT_TEXT)
          for (const marker of markersIn(value)) kept.add(marker)
        }
        return { field: change.field }
      })
      return { ...row, changes }
    })
    expect(markersIn(JSON.stringify(rest)).map((m) => marked.get(m))).toEqual([])
    // No value written to a field declared name only is there (secret-like fields: a coupon
    // code, a phone number, e-mail addresses, links, long and rich text) …
    const everything = JSON.stringify(rows)
    const leaked = [...writtenAs.name].filter((m) => markersIn(everything).includes(m))
    expect(leaked.map((m) => marked.get(m))).toEqual([])
    expect(writtenAs.name.size).toBeGreaterThan(20)
    // … and every short text written is, with its value: the rename an owner asks about.
    const missing = [...writtenAs.text].filter((m) => !kept.has(m))
    expect(missing.map((m) => marked.get(m))).toEqual([])
    expect(writtenAs.text.size).toBeGreaterThan(10)
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

    // The curriculum of a course, sent back in the order it has: no change, nothing recorded;
    // then with its sections' lessons reversed.
    const tree = await run('curriculum.get', { course_id: enrollment.course_id })
    type Section = { id: string; lessons: Array<{ id: string }> }
    const reorder = (order: (ids: string[]) => string[]) =>
      run(
        'curriculum.reorder',
        { course_id: enrollment.course_id },
        {
          sections: tree.sections.map((s: Section) => ({
            id: s.id,
            lesson_ids: order(s.lessons.map((l) => l.id)),
          })),
        },
      )
    expect(JSON.stringify(await reorder((ids) => ids))).toBe(JSON.stringify(tree))
    expect(await records('curriculum.reorder')).toHaveLength(0)
    const reversed = await reorder((ids) => ids.reverse())
    expect(reversed.sections[0].lessons.map((l: { id: string }) => l.id)).toEqual(
      tree.sections[0].lessons.map((l: { id: string }) => l.id).reverse(),
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
    const all = await db
      .selectFrom('activity')
      .selectAll()
      .where('client_id', '=', caller.clientId)
      .execute()
    expect(JSON.stringify(all).toLowerCase()).not.toContain(MARKER.toLowerCase())
  })
})
