import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestClock } from '../../support/grants.js'
import { type Json, readJson } from '../../support/http.js'
import { startTestServer, type TestServer } from '../../support/server.js'
import { ACCOUNT, callApi, type Issued, issue } from '../../support/token-lifecycle.js'

const clock = createTestClock(Date.parse('2031-03-04T05:06:07.890Z'))
let server: TestServer
beforeAll(async () => {
  server = await startTestServer({ clock })
})
afterAll(async () => {
  await server?.close()
})

/** RFC 3339 date-time in UTC, to the second, as DOMAIN.md writes timestamps. */
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/

const ACCOUNT_FIELDS = [
  'avatar_url',
  'bio',
  'created_at',
  'email',
  'email_verified',
  'id',
  'kind',
  'locale',
  'name',
  'notification_preferences',
  'object',
  'role',
  'timezone',
  'updated_at',
]

const get = (issued: Issued) => callApi(server, ACCOUNT, { token: issued.accessToken })

function patch(
  issued: Issued,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return callApi(server, ACCOUNT, {
    token: issued.accessToken,
    init: {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    },
  })
}

async function readAccount(issued: Issued): Promise<Json> {
  const response = await get(issued)
  expect(response.status).toBe(200)
  return readJson(response)
}

/** RFC 9457 problem details with an `errors` list naming each field. */
async function expectValidationErrors(
  response: Response,
  expected: Array<{ field: string; code: string }>,
): Promise<Json> {
  expect(response.status).toBe(422)
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/)
  const body = await readJson(response)
  expect(body).toMatchObject({ status: 422, code: 'validation_failed', title: expect.any(String) })
  expect(body.type).toMatch(/^https:\/\//)
  expect(typeof body.detail).toBe('string')
  expect(body.errors.map((e: Json) => ({ field: e.field, code: e.code }))).toEqual(expected)
  for (const error of body.errors) expect(typeof error.message).toBe('string')
  return body
}

async function expectProblem(response: Response, status: number): Promise<Json> {
  expect(response.status).toBe(status)
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/)
  const body = await readJson(response)
  expect(body.status).toBe(status)
  expect(typeof body.code).toBe('string')
  expect(typeof body.title).toBe('string')
  return body
}

describe('GET /api/v1/account (account:read)', () => {
  it('answers the person’s own profile with every field and RFC 3339 timestamps', async () => {
    const issued = await issue(server, { role: 'lecturer', scope: 'account:read' })
    const response = await get(issued)
    expect(response.status).toBe(200)
    expect(response.headers.get('cache-control')).toBe('no-store')
    const body = await readJson(response)
    expect(Object.keys(body).sort()).toEqual(ACCOUNT_FIELDS)
    expect(body).toMatchObject({
      id: issued.person.user.id,
      object: 'account',
      email: issued.person.email,
      name: issued.person.user.name,
      role: 'lecturer',
      kind: 'staff',
      avatar_url: null,
      locale: null,
      timezone: null,
      bio: null,
    })
    expect(body.created_at).toMatch(RFC3339)
    expect(body.updated_at).toMatch(RFC3339)
    expect(body.created_at).toBe('2031-03-04T05:06:07Z')
    for (const value of Object.values(body.notification_preferences)) {
      expect(typeof value).toBe('boolean')
    }
  })

  it('calls a student a learner', async () => {
    const issued = await issue(server, { role: 'student', scope: 'account:read' })
    expect((await readAccount(issued)).kind).toBe('learner')
  })

  it('sends a strong ETag that stays the same while nothing changes', async () => {
    const issued = await issue(server, { scope: 'account:read' })
    const first = (await get(issued)).headers.get('etag')
    const second = (await get(issued)).headers.get('etag')
    expect(first).toMatch(/^"[^"]+"$/)
    expect(second).toBe(first)
  })
})

describe('PATCH /api/v1/account (account:write): JSON merge semantics', () => {
  it('changes the given fields, leaves the others, and moves updated_at', async () => {
    const issued = await issue(server, { scope: 'account:read account:write' })
    const before = await readAccount(issued)
    clock.advance(61_000)
    const response = await patch(issued, {
      name: '  Ada King  ',
      locale: 'pt-BR',
      timezone: 'Europe/Berlin',
      avatar_url: 'https://cdn.example/ada.png',
      bio: 'Line one\nLine two',
    })
    expect(response.status).toBe(200)
    const body = await readJson(response)
    expect(body).toMatchObject({
      name: 'Ada King',
      locale: 'pt-BR',
      timezone: 'Europe/Berlin',
      avatar_url: 'https://cdn.example/ada.png',
      bio: 'Line one\nLine two',
      email: before.email,
      created_at: before.created_at,
    })
    expect(body.updated_at).toMatch(RFC3339)
    expect(body.updated_at).not.toBe(before.updated_at)
    expect(await readAccount(issued)).toEqual(body)
    // An empty patch changes nothing visible but the time.
    const empty = await readJson(await patch(issued, {}))
    expect(empty.name).toBe('Ada King')
  })

  it('null clears a nullable field', async () => {
    const issued = await issue(server, { scope: 'account:read account:write' })
    await patch(issued, { locale: 'de', timezone: 'UTC', avatar_url: 'https://x.example/a.png' })
    const response = await patch(issued, { locale: null, avatar_url: null })
    expect(response.status).toBe(200)
    const body = await readJson(response)
    expect(body).toMatchObject({ locale: null, avatar_url: null, timezone: 'UTC' })
  })

  it('merges notification_preferences key by key', async () => {
    const issued = await issue(server, { scope: 'account:read account:write' })
    const defaults = (await readAccount(issued)).notification_preferences
    await patch(issued, { notification_preferences: { new_order: false } })
    const response = await patch(issued, { notification_preferences: { product_news: true } })
    expect(response.status).toBe(200)
    expect((await readJson(response)).notification_preferences).toEqual({
      ...defaults,
      new_order: false,
      product_news: true,
    })
  })

  it('accepts a name of exactly 100 characters, counted as characters not bytes', async () => {
    const issued = await issue(server, { scope: 'account:read account:write' })
    const name = `${'é'.repeat(99)}🎻`
    const response = await patch(issued, { name })
    expect(response.status).toBe(200)
    expect((await readJson(response)).name).toBe(name)
  })
})

describe('RFC 9457 validation errors: 422 with an errors list naming each field', () => {
  const cases: Array<[string, Record<string, unknown>, Array<{ field: string; code: string }>]> = [
    [
      'an unknown field',
      { favourite_colour: 'blue' },
      [{ field: 'favourite_colour', code: 'unknown_field' }],
    ],
    [
      'the read-only email',
      { email: 'new@example.com' },
      [{ field: 'email', code: 'unknown_field' }],
    ],
    ['the read-only role', { role: 'owner' }, [{ field: 'role', code: 'unknown_field' }]],
    [
      'a timezone that is not IANA',
      { timezone: 'Mars/Olympus_Mons' },
      [{ field: 'timezone', code: 'invalid_timezone' }],
    ],
    [
      'a locale that is not BCP 47',
      { locale: 'english please' },
      [{ field: 'locale', code: 'invalid_locale' }],
    ],
    [
      'an http avatar_url',
      { avatar_url: 'http://cdn.example/a.png' },
      [{ field: 'avatar_url', code: 'invalid_url' }],
    ],
    [
      'a javascript: avatar_url',
      { avatar_url: 'javascript:alert(1)' },
      [{ field: 'avatar_url', code: 'invalid_url' }],
    ],
    ['a blank name', { name: '   ' }, [{ field: 'name', code: 'required' }]],
    ['a name of 101 characters', { name: 'a'.repeat(101) }, [{ field: 'name', code: 'too_long' }]],
    ['a null name (not nullable)', { name: null }, [{ field: 'name', code: 'invalid_type' }]],
    ['a name that is a number', { name: 42 }, [{ field: 'name', code: 'invalid_type' }]],
    [
      'a name with a control character',
      { name: 'Ada\u0000' },
      [{ field: 'name', code: 'invalid_characters' }],
    ],
    ['a bio over 2000 characters', { bio: 'b'.repeat(2001) }, [{ field: 'bio', code: 'too_long' }]],
    [
      'notification_preferences as a string',
      { notification_preferences: 'all' },
      [{ field: 'notification_preferences', code: 'invalid_type' }],
    ],
    [
      'notification_preferences as an array',
      { notification_preferences: [true] },
      [{ field: 'notification_preferences', code: 'invalid_type' }],
    ],
    [
      'notification_preferences as null',
      { notification_preferences: null },
      [{ field: 'notification_preferences', code: 'invalid_type' }],
    ],
    [
      'a notification switch that is not a boolean',
      { notification_preferences: { new_order: 'yes' } },
      [{ field: 'notification_preferences.new_order', code: 'invalid_type' }],
    ],
    [
      'an unknown notification switch',
      { notification_preferences: { pigeon_post: true } },
      [{ field: 'notification_preferences.pigeon_post', code: 'unknown_field' }],
    ],
  ]

  for (const [name, body, errors] of cases) {
    it(`refuses ${name}, changing nothing`, async () => {
      const issued = await issue(server, { scope: 'account:read account:write' })
      const before = await readAccount(issued)
      await expectValidationErrors(await patch(issued, body), errors)
      expect(await readAccount(issued)).toEqual(before)
    })
  }

  it('names every bad field at once, and applies none of the good ones', async () => {
    const issued = await issue(server, { scope: 'account:read account:write' })
    const before = await readAccount(issued)
    const body = await expectValidationErrors(
      await patch(issued, {
        email: 'x@example.com',
        name: '',
        timezone: 'Nowhere/City',
        locale: 'fr',
        notification_preferences: { weekly_summary: 1 },
      }),
      [
        { field: 'email', code: 'unknown_field' },
        { field: 'name', code: 'required' },
        { field: 'timezone', code: 'invalid_timezone' },
        { field: 'notification_preferences.weekly_summary', code: 'invalid_type' },
      ],
    )
    expect(body.detail).toMatch(/4/)
    expect((await readAccount(issued)).locale).toBe(before.locale)
  })
})

describe('RFC 9110 §13.1.1: ETag and If-Match', () => {
  it('applies a PATCH whose If-Match is the current ETag and answers the new ETag', async () => {
    const issued = await issue(server, { scope: 'account:read account:write' })
    const etag = (await get(issued)).headers.get('etag') ?? ''
    const response = await patch(issued, { name: 'Grace' }, { 'if-match': etag })
    expect(response.status).toBe(200)
    const next = response.headers.get('etag')
    expect(next).toMatch(/^"[^"]+"$/)
    expect(next).not.toBe(etag)
    expect((await get(issued)).headers.get('etag')).toBe(next)
  })

  it('refuses a stale If-Match with 412 and changes nothing', async () => {
    const issued = await issue(server, { scope: 'account:read account:write' })
    const stale = (await get(issued)).headers.get('etag') ?? ''
    expect((await patch(issued, { name: 'First' }, { 'if-match': stale })).status).toBe(200)
    const body = await expectProblem(
      await patch(issued, { name: 'Second' }, { 'if-match': stale }),
      412,
    )
    expect(body.code).toBe('precondition_failed')
    expect((await readAccount(issued)).name).toBe('First')
  })

  it('accepts If-Match: * and a list that holds the current tag', async () => {
    const issued = await issue(server, { scope: 'account:read account:write' })
    expect((await patch(issued, { bio: 'one' }, { 'if-match': '*' })).status).toBe(200)
    const etag = (await get(issued)).headers.get('etag') ?? ''
    const listed = await patch(issued, { bio: 'two' }, { 'if-match': `"nope", ${etag}` })
    expect(listed.status).toBe(200)
  })

  it('does not take an If-Match of another person’s ETag', async () => {
    const mine = await issue(server, { scope: 'account:read account:write' })
    const theirs = await issue(server, { scope: 'account:read account:write' })
    const theirTag = (await get(theirs)).headers.get('etag') ?? ''
    await expectProblem(await patch(mine, { bio: 'x' }, { 'if-match': theirTag }), 412)
  })
})

describe('PATCH /api/v1/account: the request body', () => {
  it('refuses malformed JSON with 400 problem+json', async () => {
    const issued = await issue(server, { scope: 'account:read account:write' })
    for (const text of ['{"name": ', '{name: "x"}', "{'name': 'x'}"]) {
      await expectProblem(await patch(issued, text), 400)
    }
  })

  it('refuses a JSON body that is not an object with 400', async () => {
    const issued = await issue(server, { scope: 'account:read account:write' })
    for (const text of ['[]', '"name"', '42', 'null']) {
      await expectProblem(await patch(issued, text), 400)
    }
  })

  it('refuses a key given twice with 400', async () => {
    const issued = await issue(server, { scope: 'account:read account:write' })
    await expectProblem(await patch(issued, '{"name":"A","name":"B"}'), 400)
  })

  it('refuses an empty body with 400', async () => {
    const issued = await issue(server, { scope: 'account:read account:write' })
    await expectProblem(await patch(issued, ''), 400)
  })

  it('refuses a body that is not JSON with 415, changing nothing', async () => {
    const issued = await issue(server, { scope: 'account:read account:write' })
    const before = await readAccount(issued)
    const types: Array<[string, string]> = [
      ['text/plain', '{"name":"Plain"}'],
      ['application/xml', '<name>X</name>'],
      ['application/x-www-form-urlencoded', 'name=Form+Post'],
    ]
    for (const [type, text] of types) {
      const response = await callApi(server, ACCOUNT, {
        token: issued.accessToken,
        init: { method: 'PATCH', headers: { 'content-type': type }, body: text },
      })
      await expectProblem(response, 415)
    }
    expect((await readAccount(issued)).name).toBe(before.name)
  })

  it('refuses a body over 64 KiB with 413', async () => {
    const issued = await issue(server, { scope: 'account:read account:write' })
    const response = await patch(issued, { bio: 'x'.repeat(65 * 1024) })
    await expectProblem(response, 413)
  })
})
