import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RESOURCES } from '../../src/api/registry.js'
import { type Json, readJson } from '../support/http.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { issue } from '../support/token-lifecycle.js'

/**
 * Issue 16, "ownership within roles": a lecturer holds events:write and lecturers:write
 * (DOMAIN.md §4.1), but only for what is theirs: their own lecturer profile, and the events
 * they created or host. Before, any lecturer could publish, cancel, delete or rewrite every
 * event and every colleague's profile. Black-box, on whichever engine DATABASE_URL names.
 */

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(async () => {
  await server?.close()
})

const SCOPE =
  'events:read events:write lecturers:read lecturers:write courses:read courses:write curriculum:read curriculum:write'
const HOUR = 3_600_000
const at = (ms: number) => new Date(ms).toISOString()

async function person(role: 'owner' | 'editor' | 'lecturer') {
  const issued = await issue(server, { role, scope: SCOPE })
  const token = issued.accessToken
  const call = (path: string, init: { method?: string; json?: unknown } = {}) =>
    server.fetch(path, {
      method: init.method ?? 'GET',
      headers: {
        authorization: `Bearer ${token}`,
        ...(init.json !== undefined && { 'content-type': 'application/json' }),
      },
      ...(init.json !== undefined && { body: JSON.stringify(init.json) }),
    })
  return { id: issued.person.user.id, call }
}
type Person = Awaited<ReturnType<typeof person>>

let n = 0
const eventBody = (extra: Json = {}) => ({
  title: `Event ${++n}`,
  starts_at: at(Date.now() + 48 * HOUR),
  ends_at: at(Date.now() + 49 * HOUR),
  tickets: [{ name: 'Free', price: { amount: 0, currency: 'USD' } }],
  ...extra,
})

async function created(response: Response): Promise<Json> {
  const body = await readJson(response)
  expect(response.status, JSON.stringify(body)).toBe(201)
  return body
}

async function expectForbidden(response: Response): Promise<void> {
  expect(response.status).toBe(403)
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/)
  expect(await readJson(response)).toMatchObject({ status: 403, code: 'forbidden_role' })
}

/** A lecturer profile linked to `who`, made by an editor. */
async function profileOf(editor: Person, who: Person): Promise<string> {
  return (
    await created(
      await editor.call('/api/v1/lecturers', {
        method: 'POST',
        json: { name: `Profile ${++n}`, member_id: who.id },
      }),
    )
  ).id
}

describe('ownership within roles: events', () => {
  it("a lecturer cannot edit, publish, cancel, complete or delete someone else's event", async () => {
    const editor = await person('editor')
    const intruder = await person('lecturer')
    const event = await created(
      await editor.call('/api/v1/events', { method: 'POST', json: eventBody() }),
    )
    const path = `/api/v1/events/${event.id}`
    const before = await readJson(await editor.call(path))
    await expectForbidden(await intruder.call(path, { method: 'PATCH', json: { title: 'Mine' } }))
    for (const action of ['publish', 'cancel', 'complete'])
      await expectForbidden(await intruder.call(`${path}/${action}`, { method: 'POST' }))
    await expectForbidden(await intruder.call(path, { method: 'DELETE' }))
    const after = await readJson(await editor.call(path))
    expect(after).toEqual(before)
  })

  it("a lecturer cannot add, check in or remove the attendees of someone else's event", async () => {
    const editor = await person('editor')
    const intruder = await person('lecturer')
    const event = await created(
      await editor.call('/api/v1/events', { method: 'POST', json: eventBody() }),
    )
    const attendees = `/api/v1/events/${event.id}/attendees`
    const attendee = await created(
      await editor.call(attendees, {
        method: 'POST',
        json: { email: 'guest@example.com', name: 'Guest' },
      }),
    )
    await expectForbidden(
      await intruder.call(attendees, {
        method: 'POST',
        json: { email: 'crasher@example.com', name: 'Crasher' },
      }),
    )
    const one = `${attendees}/${attendee.id}`
    await expectForbidden(
      await intruder.call(one, { method: 'PATCH', json: { status: 'checked_in' } }),
    )
    await expectForbidden(await intruder.call(one, { method: 'DELETE' }))
    const list = await readJson(await editor.call(attendees))
    expect(list.data.map((a: Json) => [a.id, a.status])).toEqual([[attendee.id, 'registered']])
  })

  it('a lecturer changes, publishes and cancels the events they created', async () => {
    const lecturer = await person('lecturer')
    const event = await created(
      await lecturer.call('/api/v1/events', { method: 'POST', json: eventBody() }),
    )
    const path = `/api/v1/events/${event.id}`
    expect(
      (await lecturer.call(path, { method: 'PATCH', json: { title: 'Renamed' } })).status,
    ).toBe(200)
    expect((await lecturer.call(`${path}/publish`, { method: 'POST' })).status).toBe(200)
    const canceled = await lecturer.call(`${path}/cancel`, { method: 'POST' })
    expect(canceled.status).toBe(200)
    expect((await readJson(canceled)).status).toBe('canceled')
    const second = await created(
      await lecturer.call('/api/v1/events', { method: 'POST', json: eventBody() }),
    )
    expect((await lecturer.call(`/api/v1/events/${second.id}`, { method: 'DELETE' })).status).toBe(
      204,
    )
  })

  it('a lecturer hosting an event (their profile in lecturer_ids) changes it, but cannot hand it away', async () => {
    const editor = await person('editor')
    const host = await person('lecturer')
    const colleague = await person('lecturer')
    const mine = await profileOf(editor, host)
    const theirs = await profileOf(editor, colleague)
    const event = await created(
      await editor.call('/api/v1/events', {
        method: 'POST',
        json: eventBody({ lecturer_ids: [mine] }),
      }),
    )
    const path = `/api/v1/events/${event.id}`
    const renamed = await host.call(path, { method: 'PATCH', json: { title: 'Hosted by me' } })
    expect(renamed.status).toBe(200)
    expect((await host.call(`${path}/publish`, { method: 'POST' })).status).toBe(200)
    // Writing themselves out of the hosts would leave them changing an event not theirs.
    await expectForbidden(
      await host.call(path, { method: 'PATCH', json: { lecturer_ids: [theirs] } }),
    )
    // Adding a colleague keeps it theirs; the colleague now hosts it too.
    const shared = await host.call(path, {
      method: 'PATCH',
      json: { lecturer_ids: [mine, theirs] },
    })
    expect(shared.status).toBe(200)
    expect(
      (await colleague.call(path, { method: 'PATCH', json: { title: 'Co-hosted' } })).status,
    ).toBe(200)
  })

  it("an editor or the owner still changes everyone's events (school-wide roles)", async () => {
    const lecturer = await person('lecturer')
    const event = await created(
      await lecturer.call('/api/v1/events', { method: 'POST', json: eventBody() }),
    )
    for (const role of ['editor', 'owner'] as const) {
      const other = await person(role)
      const response = await other.call(`/api/v1/events/${event.id}`, {
        method: 'PATCH',
        json: { title: `Edited by the ${role}` },
      })
      expect(response.status).toBe(200)
    }
  })
})

describe('ownership within roles: lecturer profiles', () => {
  it("a lecturer cannot edit or delete a colleague's profile, nor a guest lecturer's", async () => {
    const editor = await person('editor')
    const intruder = await person('lecturer')
    const colleague = await person('lecturer')
    const profiles = [
      await profileOf(editor, colleague),
      (
        await created(
          await editor.call('/api/v1/lecturers', { method: 'POST', json: { name: 'Guest' } }),
        )
      ).id,
    ]
    for (const id of profiles) {
      const path = `/api/v1/lecturers/${id}`
      const before = await readJson(await editor.call(path))
      await expectForbidden(
        await intruder.call(path, { method: 'PATCH', json: { headline: 'Hijacked' } }),
      )
      // Linking someone else's profile to oneself is claiming it: refused too.
      await expectForbidden(
        await intruder.call(path, { method: 'PATCH', json: { member_id: intruder.id } }),
      )
      await expectForbidden(await intruder.call(path, { method: 'DELETE' }))
      expect(await readJson(await editor.call(path))).toEqual(before)
    }
  })

  it('a lecturer edits their own profile, cannot give it away, and creates only their own', async () => {
    const editor = await person('editor')
    const lecturer = await person('lecturer')
    const colleague = await person('lecturer')
    const own = `/api/v1/lecturers/${await profileOf(editor, lecturer)}`
    const edited = await lecturer.call(own, { method: 'PATCH', json: { headline: 'Potter' } })
    expect(edited.status).toBe(200)
    expect((await readJson(edited)).headline).toBe('Potter')
    await expectForbidden(
      await lecturer.call(own, { method: 'PATCH', json: { member_id: colleague.id } }),
    )
    await expectForbidden(
      await lecturer.call('/api/v1/lecturers', {
        method: 'POST',
        json: { name: 'Not me', member_id: colleague.id },
      }),
    )
    const made = await created(
      await lecturer.call('/api/v1/lecturers', { method: 'POST', json: { name: 'Me again' } }),
    )
    expect(made.member_id).toBe(lecturer.id)
  })
})

describe('ownership within roles: the curriculum', () => {
  /** A course made by an editor, listing `teachers`' profiles, with one section and lesson. */
  async function course(editor: Person, lecturerIds: string[]) {
    const made = await created(
      await editor.call('/api/v1/courses', {
        method: 'POST',
        json: {
          title: `Course ${++n}`,
          lecturer_ids: lecturerIds,
          pricing_plans: [{ name: 'Free', type: 'free', price: { amount: 0, currency: 'USD' } }],
        },
      }),
    )
    const section = await created(
      await editor.call(`/api/v1/courses/${made.id}/sections`, {
        method: 'POST',
        json: { title: 'Basics' },
      }),
    )
    const lesson = await created(
      await editor.call(`/api/v1/sections/${section.id}/lessons`, {
        method: 'POST',
        json: { title: 'First', type: 'text' },
      }),
    )
    return { id: made.id as string, section: section.id as string, lesson: lesson.id as string }
  }

  it('a lecturer cannot add to, change, reorder or delete the curriculum of a course they do not teach', async () => {
    const editor = await person('editor')
    const intruder = await person('lecturer')
    const colleague = await person('lecturer')
    const target = await course(editor, [await profileOf(editor, colleague)])
    const tree = `/api/v1/courses/${target.id}/curriculum`
    const before = await readJson(await editor.call(tree))
    await expectForbidden(
      await intruder.call(`/api/v1/courses/${target.id}/sections`, {
        method: 'POST',
        json: { title: 'Mine now' },
      }),
    )
    await expectForbidden(
      await intruder.call(`/api/v1/sections/${target.section}/lessons`, {
        method: 'POST',
        json: { title: 'Planted', type: 'text' },
      }),
    )
    await expectForbidden(
      await intruder.call(`/api/v1/sections/${target.section}`, {
        method: 'PATCH',
        json: { title: 'Defaced' },
      }),
    )
    await expectForbidden(
      await intruder.call(`/api/v1/lessons/${target.lesson}`, {
        method: 'PATCH',
        json: { body: '<p>Defaced</p>' },
      }),
    )
    await expectForbidden(
      await intruder.call(`${tree}/order`, {
        method: 'PUT',
        json: { sections: [{ id: target.section, lesson_ids: [target.lesson] }] },
      }),
    )
    await expectForbidden(
      await intruder.call(`/api/v1/lessons/${target.lesson}`, { method: 'DELETE' }),
    )
    await expectForbidden(
      await intruder.call(`/api/v1/sections/${target.section}`, { method: 'DELETE' }),
    )
    expect(await readJson(await editor.call(tree))).toEqual(before)
  })

  it('a lecturer the course lists changes its curriculum', async () => {
    const editor = await person('editor')
    const teacher = await person('lecturer')
    const target = await course(editor, [await profileOf(editor, teacher)])
    const section = await created(
      await teacher.call(`/api/v1/courses/${target.id}/sections`, {
        method: 'POST',
        json: { title: 'Added by the teacher' },
      }),
    )
    await created(
      await teacher.call(`/api/v1/sections/${section.id}/lessons`, {
        method: 'POST',
        json: { title: 'New lesson', type: 'text' },
      }),
    )
    const renamed = await teacher.call(`/api/v1/lessons/${target.lesson}`, {
      method: 'PATCH',
      json: { title: 'Renamed' },
    })
    expect(renamed.status).toBe(200)
    expect(
      (await teacher.call(`/api/v1/sections/${section.id}`, { method: 'DELETE' })).status,
    ).toBe(204)
    // Courses themselves stay the school's: a lecturer cannot add themselves to one.
    const other = await course(editor, [])
    const claim = await teacher.call(`/api/v1/courses/${other.id}`, {
      method: 'PATCH',
      json: { lecturer_ids: [] },
    })
    expect(claim.status).toBe(403)
  })
})

describe('ownership within roles: every resource answers who owns its rows', () => {
  it('declares an owner rule, or says why the school owns every row', () => {
    for (const resource of RESOURCES) {
      const { ownership } = resource
      if (ownership.kind === 'school') {
        expect(ownership.reason.length, resource.collection).toBeGreaterThan(20)
        continue
      }
      expect(ownership.limited.length, resource.collection).toBeGreaterThan(0)
      for (const role of ownership.limited) expect(resource.writeRoles).toContain(role)
      expect(ownership.rule.length, resource.collection).toBeGreaterThan(20)
    }
  })

  it('limits the lecturer to their own records wherever DOMAIN.md says "own"', () => {
    const owned = RESOURCES.filter(
      (r) => r.ownership.kind === 'person' && r.ownership.limited.includes('lecturer'),
    ).map((r) => r.collection)
    expect(owned).toEqual(expect.arrayContaining(['lecturers', 'events', 'sections', 'lessons']))
  })
})
