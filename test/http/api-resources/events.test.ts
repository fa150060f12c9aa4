import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { events } from '../../../src/api/events/events.resource.js'
import { type Json, readJson } from '../../support/http.js'
import { startTestServer, type TestServer } from '../../support/server.js'
import { issue } from '../../support/token-lifecycle.js'
import { apiClient, checkConventions } from './conventions.js'

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(async () => {
  await server?.close()
})

const SCOPE = 'events:read events:write'
const HOUR = 3_600_000
const at = (ms: number) => new Date(ms).toISOString()
const JOIN = 'https://meet.example/secret-room-42'
const free = (extra: Json = {}) => ({
  name: 'Free',
  price: { amount: 0, currency: 'USD' },
  ...extra,
})
const paid = (amount: number, extra: Json = {}) => ({
  name: `Paid ${amount}`,
  price: { amount, currency: 'USD' },
  ...extra,
})
const sample = (n: number, extra: Json = {}) => ({
  title: `Event ${n}`,
  starts_at: at(Date.now() + 48 * HOUR),
  ends_at: at(Date.now() + 49 * HOUR),
  location: { platform: 'zoom', join_url: JOIN },
  tickets: [free()],
  ...extra,
})

async function writer(role: 'owner' | 'editor' | 'lecturer' = 'editor') {
  const { accessToken } = await issue(server, { role, scope: SCOPE })
  return apiClient(server, accessToken)
}
type Call = Awaited<ReturnType<typeof writer>>

async function create(call: Call, body: Json): Promise<Json> {
  const response = await call('/api/v1/events', { method: 'POST', json: body })
  const json = await readJson(response)
  expect(response.status, JSON.stringify(json)).toBe(201)
  return json
}

async function publish(call: Call, id: string): Promise<Json> {
  const response = await call(`/api/v1/events/${id}/publish`, { method: 'POST' })
  const json = await readJson(response)
  expect(response.status, JSON.stringify(json)).toBe(200)
  return json
}

let students = 0
/** A learner made directly in the database. */
async function student(): Promise<{ id: string; email: string }> {
  students += 1
  const id = `stu_test_${students}`
  const email = `learner${students}@example.com`
  const now = Date.now()
  await server.deps.database.db
    .insertInto('students')
    .values({
      id,
      email,
      name: `Learner ${students}`,
      user_id: null,
      phone: null,
      locale: null,
      timezone: null,
      status: 'active',
      tags: '[]',
      marketing_opt_in: 0,
      source: 'api',
      notes: null,
      created_at: now,
      updated_at: now,
    })
    .execute()
  return { id, email }
}

const attend = (call: Call, eventId: string, json: Json) =>
  call(`/api/v1/events/${eventId}/attendees`, { method: 'POST', json })

describe('/api/v1/events: the conventions', () => {
  checkConventions(() => server, {
    resource: events,
    sample,
    update: { title: 'Renamed event' },
    invalid: { body: { format: 'underwater' }, field: 'format' },
    deniedRole: 'teaching_assistant',
    async makePublic(id, token) {
      await publish(apiClient(server, token), id)
    },
  })
})

describe('/api/v1/events: its own rules', () => {
  it('shows the public only tickets still on sale or not yet, the team every ticket', async () => {
    const call = await writer()
    const ended = free({
      name: 'Early bird',
      sales_start_at: at(Date.now() - 3 * HOUR),
      sales_end_at: at(Date.now() - HOUR),
    })
    const open = paid(500, { sales_end_at: at(Date.now() + HOUR) })
    const event = await create(call, sample(2, { tickets: [ended, open, paid(900)] }))
    await publish(call, event.id)
    const names = (view: Json) => view.tickets.map((t: Json) => t.name)
    const full = await readJson(await call(`/api/v1/events/${event.id}`))
    expect(names(full)).toEqual(['Early bird', 'Paid 500', 'Paid 900'])
    const anonymous = apiClient(server, undefined)
    const one = await readJson(await anonymous(`/api/v1/events/${event.id}`))
    expect(names(one)).toEqual(['Paid 500', 'Paid 900'])
    const listed = (await readJson(await anonymous('/api/v1/events?limit=100'))).data.find(
      (e: Json) => e.id === event.id,
    )
    expect(names(listed)).toEqual(['Paid 500', 'Paid 900'])
    const teamListed = (await readJson(await call('/api/v1/events?limit=100'))).data.find(
      (e: Json) => e.id === event.id,
    )
    expect(names(teamListed)).toEqual(['Early bird', 'Paid 500', 'Paid 900'])
  })

  it('never shows the join link, attendee figures or private fields to the public', async () => {
    const call = await writer()
    const event = await create(call, sample(1, { title: 'Secret room', capacity: 10 }))
    await publish(call, event.id)
    const full = await readJson(await call(`/api/v1/events/${event.id}`))
    expect(full.location.join_url).toBe(JOIN)
    expect(full.attendees_count).toBe(0)
    expect(full.tickets[0]).toMatchObject({ sold_count: 0, remaining: 10 })
    const other = await issue(server, { role: 'owner', scope: 'account:read' })
    for (const token of [undefined, other.accessToken]) {
      const anonymous = apiClient(server, token)
      for (const path of [
        `/api/v1/events/${event.id}`,
        `/api/v1/events/${event.slug}`,
        '/api/v1/events?limit=100',
      ]) {
        const response = await anonymous(path)
        expect(response.status).toBe(200)
        expect(response.headers.get('data-visibility')).toBe('public')
        const text = await response.text()
        expect(text).not.toContain(JOIN)
        expect(text).not.toContain('join_url')
        expect(text).not.toContain('sold_count')
        expect(text).not.toContain('attendees_count')
      }
      const one = await readJson(await anonymous(`/api/v1/events/${event.id}`))
      expect(one.location).toEqual({ platform: 'zoom' })
      expect(one.tickets[0]).toMatchObject({ name: 'Free', remaining: 10 })
      expect(one).not.toHaveProperty('visibility')
      expect(one).not.toHaveProperty('recording')
    }
  })

  it('shows the public published and completed public events; unlisted by id only', async () => {
    const call = await writer()
    const draft = await create(call, sample(2))
    const unlisted = await create(call, sample(3, { visibility: 'unlisted' }))
    const members = await create(call, sample(4, { visibility: 'members_only' }))
    await publish(call, unlisted.id)
    await publish(call, members.id)
    expect((await server.fetch(`/api/v1/events/${draft.id}`)).status).toBe(404)
    expect((await server.fetch(`/api/v1/events/${members.id}`)).status).toBe(404)
    expect((await server.fetch(`/api/v1/events/${unlisted.slug}`)).status).toBe(200)
    const list = await readJson(await server.fetch('/api/v1/events?limit=100'))
    const ids = list.data.map((e: Json) => e.id)
    for (const hidden of [draft.id, unlisted.id, members.id]) expect(ids).not.toContain(hidden)
    expect((await call(`/api/v1/events/${members.id}`)).status).toBe(200)
  })

  it('checks times, references and the time zone', async () => {
    const call = await writer()
    const cases: Array<[Json, string]> = [
      [sample(5, { ends_at: at(Date.now() + 47 * HOUR) }), 'ends_at'],
      [sample(5, { timezone: 'Mars/Olympus' }), 'timezone'],
      [sample(5, { course_id: 'crs_nope' }), 'course_id'],
      [sample(5, { lecturer_ids: ['lec_nope'] }), 'lecturer_ids[0]'],
      [
        sample(5, { tickets: [free({ price: { amount: 1.5, currency: 'USD' } })] }),
        'tickets[0].price.amount',
      ],
      [
        sample(5, {
          tickets: [free({ sales_start_at: at(Date.now()), sales_end_at: at(Date.now() - HOUR) })],
        }),
        'tickets[0].sales_end_at',
      ],
    ]
    for (const [json, field] of cases) {
      const response = await call('/api/v1/events', { method: 'POST', json })
      expect(response.status, field).toBe(422)
      expect((await readJson(response)).errors.map((e: Json) => e.field)).toContain(field)
    }
    const event = await create(call, sample(5))
    const bad = await call(`/api/v1/events/${event.id}`, {
      method: 'PATCH',
      json: { ends_at: at(Date.now()) },
    })
    expect(bad.status).toBe(422)
    expect((await readJson(bad)).errors[0].field).toBe('ends_at')
  })

  it('publishes only with a ticket and a future end; a canceled event stays canceled', async () => {
    const call = await writer()
    const bare = await create(call, sample(6, { tickets: [] }))
    const refused = await call(`/api/v1/events/${bare.id}/publish`, { method: 'POST' })
    expect(refused.status).toBe(422)
    expect((await readJson(refused)).errors[0].field).toBe('tickets')
    const past = await create(
      call,
      sample(7, { starts_at: at(Date.now() - 3 * HOUR), ends_at: at(Date.now() - 2 * HOUR) }),
    )
    const ended = await call(`/api/v1/events/${past.id}/publish`, { method: 'POST' })
    expect(ended.status).toBe(422)
    expect((await readJson(ended)).errors[0].field).toBe('ends_at')

    const event = await create(call, sample(8))
    const published = await publish(call, event.id)
    expect(published).toMatchObject({ status: 'published' })
    expect(published.published_at).toMatch(/Z$/)
    const empty = await call(`/api/v1/events/${event.id}`, {
      method: 'PATCH',
      json: { tickets: [] },
    })
    expect(empty.status).toBe(422)
    const early = await call(`/api/v1/events/${event.id}/complete`, { method: 'POST' })
    expect(early.status).toBe(409)

    const badInput = await call(`/api/v1/events/${event.id}/cancel`, {
      method: 'POST',
      json: { notify: 'yes' },
    })
    expect(badInput.status).toBe(422)
    expect((await readJson(badInput)).errors[0].field).toBe('notify')
    const canceled = await call(`/api/v1/events/${event.id}/cancel`, {
      method: 'POST',
      json: { notify: false, reason: 'Storm warning' },
    })
    expect(canceled.status).toBe(200)
    const body = await readJson(canceled)
    expect(body).toMatchObject({
      status: 'canceled',
      cancellation_reason: 'Storm warning',
      registration_open: false,
    })
    expect(body.canceled_at).toMatch(/Z$/)
    const again = await call(`/api/v1/events/${event.id}/cancel`, { method: 'POST' })
    expect(again.status).toBe(200)
    const republish = await call(`/api/v1/events/${event.id}/publish`, { method: 'POST' })
    expect(republish.status).toBe(409)
    expect((await readJson(republish)).code).toBe('conflict')
    expect((await server.fetch(`/api/v1/events/${event.id}`)).status).toBe(404)
  })

  it('keeps ticket ids on PATCH, refuses removing a ticket with attendees and foreign ids', async () => {
    const call = await writer()
    const event = await create(call, sample(9, { tickets: [free(), paid(2500)] }))
    const [first, second] = event.tickets
    expect(first.id).toMatch(/^tkt_/)
    expect(event.tickets.map((t: Json) => t.position)).toEqual([0, 1])
    // A read comes back unchanged: the computed members are accepted and ignored.
    const renamed = await readJson(
      await call(`/api/v1/events/${event.id}`, {
        method: 'PATCH',
        json: { tickets: [{ ...first, name: 'Community' }, free({ name: 'New' })] },
      }),
    )
    expect(renamed.tickets.map((t: Json) => t.name)).toEqual(['Community', 'New'])
    expect(renamed.tickets[0].id).toBe(first.id)
    expect(renamed.tickets.map((t: Json) => t.id)).not.toContain(second.id)

    const learner = await student()
    expect(
      (await attend(call, event.id, { student_id: learner.id, ticket_id: first.id })).status,
    ).toBe(201)
    const removal = await call(`/api/v1/events/${event.id}`, {
      method: 'PATCH',
      json: { tickets: [renamed.tickets[1]] },
    })
    expect(removal.status).toBe(409)
    expect((await readJson(removal)).code).toBe('conflict')
    const below = await call(`/api/v1/events/${event.id}`, {
      method: 'PATCH',
      json: { tickets: [{ id: first.id, name: 'Community', price: first.price, quantity: 0 }] },
    })
    expect(below.status).toBe(422)
    const foreign = await call(`/api/v1/events/${event.id}`, {
      method: 'PATCH',
      json: { tickets: [free({ id: 'tkt_someone_else' })] },
    })
    expect(foreign.status).toBe(422)
    expect((await readJson(foreign)).errors[0].field).toBe('tickets[0].id')
    const kept = await readJson(await call(`/api/v1/events/${event.id}`))
    expect(kept.tickets.map((t: Json) => t.id)).toEqual(renamed.tickets.map((t: Json) => t.id))
  })

  it('counts sold tickets and remaining seats from the attendees', async () => {
    const call = await writer()
    const event = await create(
      call,
      sample(10, { capacity: 3, tickets: [free({ quantity: 2 }), free({ name: 'Open' })] }),
    )
    await publish(call, event.id)
    const [limited, open] = event.tickets
    const people = [await student(), await student(), await student(), await student()]
    for (const person of people.slice(0, 2))
      expect(
        (await attend(call, event.id, { student_id: person.id, ticket_id: limited.id })).status,
      ).toBe(201)
    const soldOut = await attend(call, event.id, {
      student_id: people[2]?.id,
      ticket_id: limited.id,
    })
    expect(soldOut.status).toBe(409)
    expect((await readJson(soldOut)).detail).toMatch(/sold out/)
    let full = await readJson(await call(`/api/v1/events/${event.id}`))
    expect(full.attendees_count).toBe(2)
    expect(full.tickets.map((t: Json) => [t.sold_count, t.remaining])).toEqual([
      [2, 0],
      [0, 1],
    ])
    const pub = await readJson(await server.fetch(`/api/v1/events/${event.id}`))
    expect(pub.tickets.map((t: Json) => t.remaining)).toEqual([0, 1])

    expect(
      (await attend(call, event.id, { student_id: people[2]?.id, ticket_id: open.id })).status,
    ).toBe(201)
    const noSeat = await attend(call, event.id, { email: 'walk-in@example.com', name: 'Walk In' })
    expect(noSeat.status).toBe(409)
    expect((await readJson(noSeat)).detail).toMatch(/full/)
    const lowered = await call(`/api/v1/events/${event.id}`, {
      method: 'PATCH',
      json: { capacity: 2 },
    })
    expect(lowered.status).toBe(422)

    // A canceled registration frees its seat, and counts no more.
    const list = await readJson(await call(`/api/v1/events/${event.id}/attendees`))
    const firstAttendee = list.data[0]
    await call(`/api/v1/events/${event.id}/attendees/${firstAttendee.id}`, {
      method: 'PATCH',
      json: { status: 'canceled' },
    })
    full = await readJson(await call(`/api/v1/events/${event.id}`))
    expect(full.attendees_count).toBe(2)
    expect(full.tickets.map((t: Json) => [t.sold_count, t.remaining])).toEqual([
      [1, 1],
      [1, 1],
    ])
  })

  it('prices tickets in the school currency only', async () => {
    const call = await writer()
    const response = await call('/api/v1/events', {
      method: 'POST',
      json: sample(41, {
        tickets: [free({ name: 'Euro', price: { amount: 500, currency: 'EUR' } })],
      }),
    })
    expect(response.status).toBe(422)
    expect((await readJson(response)).errors).toContainEqual(
      expect.objectContaining({ field: 'tickets[0].price.currency', code: 'currency' }),
    )
  })

  it('never oversells: concurrent registrations for the last seats get 409 past capacity', async () => {
    const call = await writer()
    const event = await create(call, sample(40, { capacity: 3 }))
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        attend(call, event.id, { email: `rush${i}@example.com`, name: `Rush ${i}` }),
      ),
    )
    const statuses = answers.map((r) => r.status).sort()
    expect(statuses.filter((s) => s === 201)).toHaveLength(3)
    expect(statuses.filter((s) => s === 409)).toHaveLength(9)
    const full = await readJson(await call(`/api/v1/events/${event.id}`))
    expect(full.attendees_count).toBe(3)
  })

  it('adds attendees idempotently per person, by student or by e-mail', async () => {
    const call = await writer()
    const event = await create(call, sample(11))
    const learner = await student()
    const first = await attend(call, event.id, { student_id: learner.id })
    expect(first.status).toBe(201)
    const added = await readJson(first)
    expect(first.headers.get('location')).toBe(
      `${server.issuer}/api/v1/events/${event.id}/attendees/${added.id}`,
    )
    expect(added).toMatchObject({
      object: 'event_attendee',
      student_id: learner.id,
      email: learner.email,
      source: 'manual',
      order_id: null,
      status: 'registered',
      ticket_id: null,
    })
    const again = await attend(call, event.id, { student_id: learner.id })
    expect(again.status).toBe(200)
    expect((await readJson(again)).id).toBe(added.id)
    const byMail = await attend(call, event.id, { email: learner.email.toUpperCase(), name: 'X' })
    expect(byMail.status).toBe(200)
    expect((await readJson(byMail)).id).toBe(added.id)
    const guest = await readJson(
      await attend(call, event.id, { email: 'guest@example.com', name: 'Guest' }),
    )
    expect(guest).toMatchObject({ student_id: null, email: 'guest@example.com', name: 'Guest' })

    const other = await create(call, sample(12))
    const cases: Array<[Json, string]> = [
      [{}, 'student_id'],
      [{ student_id: learner.id, email: 'a@example.com' }, 'student_id'],
      [{ email: 'a@example.com' }, 'name'],
      [{ student_id: 'stu_nope' }, 'student_id'],
      [{ student_id: learner.id, ticket_id: other.tickets[0].id }, 'ticket_id'],
      [{ student_id: learner.id, seats: 2 }, 'seats'],
    ]
    for (const [json, field] of cases) {
      const response = await attend(call, event.id, json)
      expect(response.status, JSON.stringify(json)).toBe(422)
      expect((await readJson(response)).errors.map((e: Json) => e.field)).toContain(field)
    }
    const list = await readJson(await call(`/api/v1/events/${event.id}/attendees`))
    expect(list.total_count).toBe(2)
    const full = await readJson(await call(`/api/v1/events/${event.id}`))
    expect(full.attendees_count).toBe(2)
  })

  it('changes attendee status: check-in records the time; filters by status', async () => {
    const call = await writer('lecturer')
    const event = await create(call, sample(13))
    const attendee = await readJson(
      await attend(call, event.id, { email: 'door@example.com', name: 'Door' }),
    )
    const path = `/api/v1/events/${event.id}/attendees/${attendee.id}`
    const checked = await readJson(
      await call(path, { method: 'PATCH', json: { status: 'checked_in' } }),
    )
    expect(checked.status).toBe('checked_in')
    expect(checked.checked_in_at).toMatch(/Z$/)
    const filtered = await readJson(
      await call(`/api/v1/events/${event.id}/attendees?status=checked_in`),
    )
    expect(filtered.data.map((a: Json) => a.id)).toEqual([attendee.id])
    expect(
      (await readJson(await call(`/api/v1/events/${event.id}/attendees?status=no_show`))).data,
    ).toEqual([])
    const back = await readJson(await call(path, { method: 'PATCH', json: { status: 'no_show' } }))
    expect(back).toMatchObject({ status: 'no_show', checked_in_at: null })
    const bad = await call(path, { method: 'PATCH', json: { status: 'vanished' } })
    expect(bad.status).toBe(422)
    expect((await readJson(bad)).errors[0].field).toBe('status')
    const stale = await call(path, {
      method: 'PATCH',
      json: { status: 'registered' },
      headers: { 'if-match': '"stale"' },
    })
    expect(stale.status).toBe(412)
    expect((await call(`${path}x`)).status).toBe(404)
    const other = await create(call, sample(14))
    expect((await call(`/api/v1/events/${other.id}/attendees/${attendee.id}`)).status).toBe(404)
    expect((await call(`/api/v1/events/${event.id}/attendees?colour=red`)).status).toBe(400)
    expect((await call(`/api/v1/events/${event.id}/attendees?status=gone`)).status).toBe(400)
    expect((await call(path, { method: 'DELETE' })).status).toBe(204)
    expect((await call(path)).status).toBe(404)
  })

  it('projects attendees with fields, listed and one by one, with the projection’s ETag', async () => {
    const call = await writer()
    const event = await create(call, sample(16))
    const attendee = await readJson(
      await attend(call, event.id, { email: 'fields@example.com', name: 'Fields' }),
    )
    const list = await readJson(await call(`/api/v1/events/${event.id}/attendees?fields=email`))
    expect(list.data).toEqual([
      { id: attendee.id, object: 'event_attendee', email: attendee.email },
    ])
    const path = `/api/v1/events/${event.id}/attendees/${attendee.id}`
    const whole = await call(path)
    const one = await call(`${path}?fields=status,name`)
    expect(await readJson(one)).toEqual({
      id: attendee.id,
      object: 'event_attendee',
      status: 'registered',
      name: 'Fields',
    })
    expect(one.headers.get('etag')).toMatch(/^"[^"]+"$/)
    expect(one.headers.get('etag')).not.toBe(whole.headers.get('etag'))
    for (const target of [path, `/api/v1/events/${event.id}/attendees`]) {
      const bad = await call(`${target}?fields=email,password`)
      expect(bad.status).toBe(400)
      expect((await readJson(bad)).errors[0]).toMatchObject({
        field: 'fields',
        code: 'unknown_field',
      })
    }
  })

  it('pages the attendees with a cursor', async () => {
    const call = await writer()
    const event = await create(call, sample(15))
    for (let i = 0; i < 5; i += 1)
      await attend(call, event.id, { email: `page${i}@example.com`, name: `Page ${i}` })
    const seen: string[] = []
    let cursor: string | null = null
    do {
      const page: Json = await readJson(
        await call(
          `/api/v1/events/${event.id}/attendees?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
        ),
      )
      expect(page.total_count).toBe(5)
      seen.push(...page.data.map((a: Json) => a.id))
      cursor = page.has_more ? page.next_cursor : null
    } while (cursor)
    expect(new Set(seen).size).toBe(5)
  })

  it('guards the attendee routes: scopes, roles, unknown events, closed events', async () => {
    const call = await writer()
    const event = await create(call, sample(16))
    await publish(call, event.id)
    const path = `/api/v1/events/${event.id}/attendees`
    const anonymous = await server.fetch(path)
    expect(anonymous.status).toBe(401)
    const other = await issue(server, { role: 'owner', scope: 'account:read events:read' })
    const reader = apiClient(server, other.accessToken)
    expect((await reader(path)).status).toBe(200)
    const noWrite = await reader(path, {
      method: 'POST',
      json: { email: 'a@example.com', name: 'A' },
    })
    expect(noWrite.status).toBe(403)
    expect((await readJson(noWrite)).code).toBe('insufficient_scope')
    const plain = await issue(server, { role: 'owner', scope: 'account:read' })
    expect((await apiClient(server, plain.accessToken)(path)).status).toBe(403)
    expect((await call('/api/v1/events/evt_nope/attendees')).status).toBe(404)
    await call(`/api/v1/events/${event.id}/cancel`, { method: 'POST' })
    const closed = await attend(call, event.id, { email: 'late@example.com', name: 'Late' })
    expect(closed.status).toBe(409)
  })

  it('deletes an event only without paid sales; a purchase is canceled, not deleted', async () => {
    const call = await writer()
    const db = server.deps.database.db
    const comp = await create(call, sample(17))
    await attend(call, comp.id, { email: 'comp@example.com', name: 'Comp' })
    expect((await call(`/api/v1/events/${comp.id}`, { method: 'DELETE' })).status).toBe(204)
    expect(
      await db.selectFrom('event_attendees').select('id').where('event_id', '=', comp.id).execute(),
    ).toEqual([])

    const sold = await create(call, sample(18, { tickets: [paid(4900)] }))
    const now = Date.now()
    await db
      .insertInto('event_attendees')
      .values({
        id: 'att_test_purchase',
        event_id: sold.id,
        ticket_id: sold.tickets[0].id,
        student_id: null,
        name: 'Buyer',
        email: 'buyer@example.com',
        order_id: 'ord_test_1',
        status: 'registered',
        source: 'purchase',
        registered_at: now,
        checked_in_at: null,
        created_at: now,
        updated_at: now,
      })
      .execute()
    const refused = await call(`/api/v1/events/${sold.id}`, { method: 'DELETE' })
    expect(refused.status).toBe(409)
    expect((await readJson(refused)).detail).toMatch(/cancel/)
    const attendee = `/api/v1/events/${sold.id}/attendees/att_test_purchase`
    const keep = await call(attendee, { method: 'DELETE' })
    expect(keep.status).toBe(409)
    expect((await readJson(keep)).detail).toMatch(/canceled/)
    const ticket = await readJson(await call(`/api/v1/events/${sold.id}`))
    expect(ticket.tickets[0].sold_count).toBe(1)
    await call(attendee, { method: 'PATCH', json: { status: 'canceled' } })
    expect((await readJson(await call(`/api/v1/events/${sold.id}`))).tickets[0].sold_count).toBe(0)
    // Still sold once: the order stays, so the event stays.
    expect((await call(`/api/v1/events/${sold.id}`, { method: 'DELETE' })).status).toBe(409)
  })

  it('filters by status, type, time and lecturer', async () => {
    const call = await writer('owner')
    const lecturerToken = await issue(server, { role: 'owner', scope: 'lecturers:write' })
    const lecturer = await readJson(
      await apiClient(server, lecturerToken.accessToken)('/api/v1/lecturers', {
        method: 'POST',
        json: { name: 'Event Host' },
      }),
    )
    const past = await create(
      call,
      sample(19, {
        type: 'meetup',
        starts_at: at(Date.now() - 5 * HOUR),
        ends_at: at(Date.now() - 4 * HOUR),
        lecturer_ids: [lecturer.id],
      }),
    )
    const upcoming = await create(call, sample(20, { type: 'meetup', lecturer_ids: [lecturer.id] }))
    const ids = async (query: string) =>
      (await readJson(await call(`/api/v1/events?limit=100&${query}`))).data.map((e: Json) => e.id)
    const hosted = await ids(`lecturer_id=${lecturer.id}`)
    expect(hosted).toEqual([upcoming.id, past.id])
    expect(await ids(`lecturer_id=${lecturer.id}&when=past`)).toEqual([past.id])
    expect(await ids(`lecturer_id=${lecturer.id}&when=upcoming`)).toEqual([upcoming.id])
    expect(await ids('type=meetup&status=draft')).toEqual(expect.arrayContaining(hosted))
    expect(await ids(`type=webinar&lecturer_id=${lecturer.id}`)).toEqual([])
    expect((await call('/api/v1/events?when=soon')).status).toBe(400)
  })
})
