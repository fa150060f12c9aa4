import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  filterableOf,
  filterOf,
  isPublicColumn,
  searchableOf,
  sortableOf,
} from '../../src/api/framework/list-params.js'
import { pathOf } from '../../src/api/framework/resource.js'
import { RESOURCES } from '../../src/api/registry.js'
import { craftedCursors } from '../support/crafted-cursors.js'
import { type Json, readJson } from '../support/http.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { issue } from '../support/token-lifecycle.js'

/**
 * Issue 16, "the public view leaks nothing through its side doors". What a caller cannot
 * read, it cannot filter, sort or search by either: `?member_id=usr_…` on the public
 * lecturer list used to answer which visible profile belongs to which team member, though
 * the public projection never shows `member_id`. And a list cursor is the caller's to
 * write: every crafted one is a 400, never a 500, on SQLite and on PostgreSQL (run this file
 * with DATABASE_URL set for the latter).
 */

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(async () => {
  await server?.close()
})

const READ_SCOPES = [...new Set(RESOURCES.map((r) => r.scopes.read))].join(' ')
const HOUR = 3_600_000

function caller(token?: string) {
  return (path: string, init: { method?: string; json?: unknown } = {}) =>
    server.fetch(path, {
      method: init.method ?? 'GET',
      headers: {
        ...(token && { authorization: `Bearer ${token}` }),
        ...(init.json !== undefined && { 'content-type': 'application/json' }),
      },
      ...(init.json !== undefined && { body: JSON.stringify(init.json) }),
    })
}

async function expectBadRequest(response: Response, field: string, code: string): Promise<Json> {
  expect(response.status).toBe(400)
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/)
  const body = await readJson(response)
  expect(body.code).toBe('invalid_request')
  expect(body.errors[0]).toMatchObject({ field, code })
  return body
}

describe('a filter on a hidden column is no oracle', () => {
  it("anonymous ?member_id= cannot tell which public lecturer profile is a team member's", async () => {
    const editor = await issue(server, { role: 'editor', scope: 'lecturers:read lecturers:write' })
    const member = await issue(server, { role: 'lecturer', scope: 'account:read' })
    const write = caller(editor.accessToken)
    const made = await write('/api/v1/lecturers', {
      method: 'POST',
      json: { name: 'Linked Lecturer', member_id: member.person.user.id, visible: true },
    })
    expect(made.status).toBe(201)
    const probe = `/api/v1/lecturers?member_id=${member.person.user.id}`
    const noScope = await issue(server, { role: 'owner', scope: 'account:read' })
    for (const token of [undefined, noScope.accessToken]) {
      const body = await expectBadRequest(await caller(token)(probe), 'member_id', 'not_public')
      expect(body.detail).toContain('lecturers:read')
      // The same answer whether or not the id is anyone's: nothing to compare.
      await expectBadRequest(
        await caller(token)('/api/v1/lecturers?member_id=usr_nobody'),
        'member_id',
        'not_public',
      )
    }
    // The profile itself is public; only the link is not.
    const publicList = await readJson(await caller()('/api/v1/lecturers?limit=100'))
    expect(publicList.data.map((l: Json) => l.name)).toContain('Linked Lecturer')
    for (const l of publicList.data) expect(l).not.toHaveProperty('member_id')
    // With the read scope the filter is served.
    const full = await readJson(await write(probe))
    expect(full.data.map((l: Json) => l.member_id)).toEqual([member.person.user.id])
  })

  it('anonymous ?visible=false and ?visibility=members_only are refused, not answered empty', async () => {
    await expectBadRequest(
      await caller()('/api/v1/lecturers?visible=false'),
      'visible',
      'not_public',
    )
    await expectBadRequest(
      await caller()('/api/v1/events?visibility=members_only'),
      'visibility',
      'not_public',
    )
  })

  it('declares for every resource: public filters, sorts and searches read only public fields', () => {
    for (const resource of RESOURCES) {
      for (const name of filterableOf(resource, false)) {
        const filter = filterOf(resource, name)
        expect(filter?.public, `${resource.collection}?${name}`).toBe(true)
        const reads = filter?.declared ? filter.declared.reads : [name]
        for (const column of reads)
          expect(isPublicColumn(resource, column), `${resource.collection}?${name}`).toBe(true)
      }
      for (const filter of Object.values(resource.filters ?? {}))
        expect(filter.reads.length, resource.collection).toBeGreaterThan(0)
      for (const name of [...sortableOf(resource, false), ...searchableOf(resource, false)])
        expect(isPublicColumn(resource, name), `${resource.collection} ${name}`).toBe(true)
      // A list the public may walk is sorted, by default, by what the public may see.
      if (resource.public && resource.operations.includes('list'))
        for (const part of (resource.defaultSort ?? '-created_at').split(','))
          expect(sortableOf(resource, false), resource.collection).toContain(part.replace(/^-/, ''))
    }
  })
})

describe('every list cursor, however crafted, is a 400 on this engine', () => {
  it('walks every list endpoint, as a full reader and anonymously, with the crafted cursors', async () => {
    const reader = await issue(server, { role: 'owner', scope: READ_SCOPES })
    const lists = RESOURCES.filter((r) => r.operations.includes('list') && !r.singleton)
    expect(lists.length).toBeGreaterThan(15)
    const failures: string[] = []
    for (const resource of lists) {
      const paths = [pathOf(resource)]
      const parent = resource.parent
      if (parent)
        paths.push(
          `${pathOf(parent.resource())}/${parent.resource().idPrefix}_none/${parent.segment ?? resource.collection}`,
        )
      const other = resource.collection === 'courses' ? 'events' : 'courses'
      const tokens = [reader.accessToken, ...(resource.public ? [undefined] : [])]
      for (const path of paths)
        for (const token of tokens)
          for (const [trick, cursor] of craftedCursors(resource, other)) {
            const response = await caller(token)(`${path}?cursor=${encodeURIComponent(cursor)}`)
            const body = await readJson(response)
            if (response.status !== 400 || body.errors?.[0]?.code !== 'invalid_cursor')
              failures.push(
                `${path} (${token ? 'reader' : 'anonymous'}) ${trick}: ${response.status}`,
              )
          }
    }
    expect(failures).toEqual([])
  })

  it('the attendee list of an event refuses crafted cursors too', async () => {
    const owner = await issue(server, { role: 'owner', scope: 'events:read events:write' })
    const call = caller(owner.accessToken)
    const made = await call('/api/v1/events', {
      method: 'POST',
      json: {
        title: 'Cursor party',
        starts_at: new Date(Date.now() + 48 * HOUR).toISOString(),
        ends_at: new Date(Date.now() + 49 * HOUR).toISOString(),
        tickets: [{ name: 'Free', price: { amount: 0, currency: 'USD' } }],
      },
    })
    expect(made.status).toBe(201)
    const list = `/api/v1/events/${(await readJson(made)).id}/attendees`
    for (let i = 0; i < 3; i += 1) {
      const added = await call(list, {
        method: 'POST',
        json: { email: `door${i}@example.com`, name: `Door ${i}` },
      })
      expect(added.status).toBe(201)
    }
    const real = (await readJson(await call(`${list}?limit=1`))).next_cursor as string
    expect(real).toEqual(expect.any(String))
    expect((await call(`${list}?limit=1&cursor=${real}`)).status).toBe(200)
    const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')
    const crafted: Array<[string, string]> = [
      ['not base64url', '!!!!'],
      ['a fraction for the time', b64([1.5, 'att_x'])],
      ['a huge time', b64([1e308, 'att_x'])],
      ['a time beyond bigint', b64([2 ** 63, 'att_x'])],
      ['a string for the time', b64(['1700000000000', 'att_x'])],
      ['U+0000 in the id', b64([1, 'att_\u0000'])],
      ['a nested array', b64([[1], ['att_x']])],
      ['an object', b64({ 0: 1, 1: 'att_x' })],
      ["an events list's cursor", b64(['events', '-starts_at', [1, 'evt_x']])],
      ['a real cursor cut short', real.slice(0, 5)],
    ]
    for (const [trick, cursor] of crafted) {
      const response = await call(`${list}?cursor=${encodeURIComponent(cursor)}`)
      expect(response.status, trick).toBe(400)
      expect((await readJson(response)).errors[0].code, trick).toBe('invalid_cursor')
    }
  })
})
