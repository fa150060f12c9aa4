import { expect, it } from 'vitest'
import { filterableOf, searchableOf, sortableOf } from '../../../src/api/framework/list-params.js'
import { pathOf, type ResourceDefinition } from '../../../src/api/framework/resource.js'
import { craftedCursors, plausibleCursor } from '../../support/crafted-cursors.js'
import { type Json, readJson } from '../../support/http.js'
import { writeMismatches } from '../../support/openapi-responses.js'
import type { TestServer } from '../../support/server.js'
import { issue } from '../../support/token-lifecycle.js'
import type { ConventionSpec } from './convention-spec.js'

export type { ConventionSpec }

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/

/** A client for one server with a token (or none). */
export function apiClient(server: TestServer, token?: string) {
  return (path: string, init: RequestInit & { json?: unknown } = {}) => {
    const headers = new Headers(init.headers)
    if (token) headers.set('authorization', `Bearer ${token}`)
    if (init.json !== undefined) headers.set('content-type', 'application/json')
    return server.fetch(path, {
      ...init,
      headers,
      ...(init.json !== undefined && { body: JSON.stringify(init.json) }),
    })
  }
}

async function expectProblem(response: Response, status: number, code?: string): Promise<Json> {
  expect(response.status).toBe(status)
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/)
  const body = await readJson(response)
  if (code) expect(body.code).toBe(code)
  return body
}

/** Expects a write's answer to be what openapi.json declares for its path, method and status. */
function expectDeclared(method: string, path: string, response: Response, body: Json): void {
  expect(writeMismatches(method, path, response, body)).toEqual([])
}

/**
 * Registers the checks every resource must pass, from its declaration: projections, scopes,
 * roles, validation, pagination, If-Match and Idempotency-Key. Call inside a `describe` whose
 * `beforeAll` started the server `getServer` returns.
 */
export function checkConventions(getServer: () => TestServer, spec: ConventionSpec): void {
  const { resource } = spec
  const base = pathOf(resource)
  const privateFields = Object.entries(resource.fields)
    .filter(([, f]) => !f.options.public)
    .map(([name]) => name)
  const scopes = [resource.scopes.read, resource.scopes.write].filter(Boolean).join(' ')
  const can = (op: ResourceDefinition['operations'][number]) => resource.operations.includes(op)
  let counter = 0
  /** What the write checks need; an updatable resource must say it. */
  const writes = () => {
    const { update, invalid, deniedRole } = spec
    if (!update || !invalid || !deniedRole)
      throw new Error(`${resource.collection}: give update, invalid and deniedRole`)
    return { update, invalid, deniedRole }
  }
  const writer = () => issue(getServer(), { role: 'owner', scope: scopes })
  const createPath = () => spec.createPath?.() ?? base

  /** A record to check against: the singleton, or a new one. Returns its path. */
  async function record(token: string, publish = false): Promise<{ path: string; body: Json }> {
    const call = apiClient(getServer(), token)
    if (resource.singleton) return { path: base, body: await readJson(await call(base)) }
    counter += 1
    if (spec.fixture) {
      const id = await spec.fixture(getServer(), counter, publish)
      return { path: `${base}/${id}`, body: await readJson(await call(`${base}/${id}`)) }
    }
    const target = createPath()
    const response = await call(target, { method: 'POST', json: spec.sample?.(counter) })
    expect(response.status).toBe(201)
    const body = await readJson(response)
    expectDeclared('POST', target, response, body)
    if (publish) await spec.makePublic?.(body.id, token)
    return { path: `${base}/${body.id}`, body }
  }

  it('answers a single object with a prefixed id, RFC 3339 times and an ETag', async () => {
    const { accessToken } = await writer()
    const { path } = await record(accessToken)
    const response = await apiClient(getServer(), accessToken)(path)
    expect(response.status).toBe(200)
    expect(response.headers.get('etag')).toMatch(/^"[^"]+"$/)
    expect(response.headers.get('data-visibility')).toBe('full')
    const body = await readJson(response)
    expect(body.object).toBe(resource.object)
    if (!resource.singleton) expect(body.id).toMatch(new RegExp(`^${resource.idPrefix}_`))
    expect(body.created_at).toMatch(RFC3339)
    expect(body.updated_at).toMatch(RFC3339)
    for (const name of Object.keys(resource.fields)) expect(body).toHaveProperty(name)
  })

  if (resource.public) {
    it('shows callers without the read scope only the public projection', async () => {
      const { accessToken } = await writer()
      const { path } = await record(accessToken, true)
      const other = await issue(getServer(), { role: 'owner', scope: 'account:read' })
      for (const token of [undefined, other.accessToken]) {
        const call = apiClient(getServer(), token)
        const one = await call(path)
        expect(one.status).toBe(200)
        expect(one.headers.get('data-visibility')).toBe('public')
        const body = await readJson(one)
        for (const name of privateFields) expect(body).not.toHaveProperty(name)
        if (resource.singleton) continue
        const list = await readJson(await call(`${base}?limit=100`))
        expect(list.data.length).toBeGreaterThan(0)
        for (const item of list.data)
          for (const name of privateFields) expect(item).not.toHaveProperty(name)
      }
    })
  } else {
    it('refuses anonymous callers with 401 and tokens without the read scope with 403', async () => {
      const call = apiClient(getServer())
      await expectProblem(await call(base), 401, 'unauthenticated')
      const other = await issue(getServer(), { role: 'owner', scope: 'account:read' })
      const response = await apiClient(getServer(), other.accessToken)(base)
      await expectProblem(response, 403, 'insufficient_scope')
    })
  }

  it('answers only the members fields names (id and object always), with the ETag of what it answers', async () => {
    const { accessToken } = await writer()
    const { path } = await record(accessToken, true)
    const call = apiClient(getServer(), accessToken)
    const name = Object.keys(resource.fields)[0] ?? 'created_at'
    const sorted = (...names: string[]) => [...new Set(['id', 'object', ...names])].sort()
    const whole = await call(path)
    const one = await call(`${path}?fields=${name},updated_at`)
    expect(one.status).toBe(200)
    const body = await readJson(one)
    expect(Object.keys(body).sort()).toEqual(sorted(name, 'updated_at'))
    expect(body[name]).toEqual((await readJson(whole))[name])
    // Another representation, another ETag: If-Match takes the whole record's.
    expect(one.headers.get('etag')).toMatch(/^"[^"]+"$/)
    expect(one.headers.get('etag')).not.toBe(whole.headers.get('etag'))
    const paths = can('list') && !resource.singleton ? [path, base] : [path]
    if (paths.length > 1) {
      const list = await readJson(await call(`${base}?limit=5&fields=${name}`))
      expect(list.data.length).toBeGreaterThan(0)
      for (const item of list.data) expect(Object.keys(item).sort()).toEqual(sorted(name))
    }
    for (const target of paths)
      for (const fields of ['no_such_field', '', `${name},,id`, `${name}&fields=id`]) {
        const problem = await expectProblem(
          await call(`${target}?fields=${fields}`),
          400,
          'invalid_request',
        )
        expect(problem.errors[0].field).toBe('fields')
      }
    if (resource.public) {
      const anonymous = apiClient(getServer())
      const shown = Object.keys(resource.fields).find((f) => resource.fields[f]?.options.public)
      for (const target of paths) {
        for (const hidden of privateFields) {
          const problem = await expectProblem(
            await anonymous(`${target}?fields=${hidden}`),
            400,
            'invalid_request',
          )
          expect(problem.errors[0]).toMatchObject({ field: 'fields', code: 'not_public' })
        }
        const response = await anonymous(`${target}?fields=${shown ?? 'created_at'}`)
        expect(response.status).toBe(200)
        const answered = await readJson(response)
        for (const item of target === path ? [answered] : answered.data)
          expect(Object.keys(item).sort()).toEqual(sorted(shown ?? 'created_at'))
      }
    }
  })

  if (spec.makePublic) {
    it('answers 404 for an unpublished record, exactly as for one that does not exist', async () => {
      const { accessToken } = await writer()
      const { path } = await record(accessToken)
      const call = apiClient(getServer())
      const hidden = await expectProblem(await call(path), 404, 'not_found')
      const missing = await expectProblem(await call(`${base}/${resource.idPrefix}_nope`), 404)
      expect({ ...hidden, request_id: 0 }).toEqual({ ...missing, request_id: 0 })
    })
  }

  if (!resource.scopes.write) {
    it('serves no write: POST, PATCH and DELETE are not routes', async () => {
      const { accessToken } = await writer()
      const { path } = await record(accessToken)
      const call = apiClient(getServer(), accessToken)
      for (const [method, target] of [
        ['POST', base],
        ['PATCH', path],
        ['DELETE', path],
      ] as const) {
        const response = await call(target, { method, json: {} })
        expect([404, 405]).toContain(response.status)
      }
    })
  }

  if (resource.scopes.write)
    it('refuses a write without the write scope: 403 insufficient_scope', async () => {
      const reader = await issue(getServer(), { role: 'owner', scope: resource.scopes.read })
      const call = apiClient(getServer(), reader.accessToken)
      const response = resource.singleton
        ? await call(base, { method: 'PATCH', json: writes().update })
        : await call(createPath(), { method: 'POST', json: spec.sample?.(0) })
      const body = await expectProblem(response, 403, 'insufficient_scope')
      expect(body.required_scopes).toEqual([resource.scopes.write])
      expect(response.headers.get('www-authenticate')).toContain(resource.scopes.write)
    })

  if (can('update'))
    it('refuses a write from a role that may not make it: 403 problem', async () => {
      const denied = await issue(getServer(), { role: writes().deniedRole, scope: scopes })
      const { accessToken } = await writer()
      const { path } = await record(accessToken)
      const response = await apiClient(getServer(), denied.accessToken)(path, {
        method: 'PATCH',
        json: writes().update,
      })
      const body = await expectProblem(response, 403)
      expect(['insufficient_scope', 'forbidden_role']).toContain(body.code)
    })

  if (can('update'))
    it('names the invalid, unknown and read-only fields of a write in a 422', async () => {
      const { accessToken } = await writer()
      const { path } = await record(accessToken)
      const call = apiClient(getServer(), accessToken)
      const cases: Array<[Record<string, unknown>, string, string]> = [
        [writes().invalid.body, writes().invalid.field, ''],
        [{ no_such_field: 1 }, 'no_such_field', 'unknown_field'],
        [{ id: 'x' }, 'id', 'read_only'],
      ]
      for (const [json, field, code] of cases) {
        const body = await expectProblem(
          await call(path, { method: 'PATCH', json }),
          422,
          'validation_failed',
        )
        const error = body.errors.find(
          (e: Json) => e.field === field || e.field.startsWith(`${field}.`),
        )
        expect(error, JSON.stringify(body.errors)).toBeDefined()
        if (code) expect(error.code).toBe(code)
      }
    })

  if (can('update'))
    it('honours If-Match: 412 on a stale tag, success on the current one', async () => {
      const { accessToken } = await writer()
      const { path } = await record(accessToken)
      const call = apiClient(getServer(), accessToken)
      const etag = (await call(path)).headers.get('etag') ?? ''
      const stale = await call(path, {
        method: 'PATCH',
        json: writes().update,
        headers: { 'if-match': '"stale"' },
      })
      await expectProblem(stale, 412, 'precondition_failed')
      const fresh = await call(path, {
        method: 'PATCH',
        json: writes().update,
        headers: { 'if-match': etag },
      })
      expect(fresh.status).toBe(200)
      expect(fresh.headers.get('etag')).toMatch(/^"/)
      const body = await readJson(fresh)
      expect(body).toMatchObject({ object: resource.object })
      expectDeclared('PATCH', path, fresh, body)
    })

  // On a record made public when the resource can (a product publishes only with a file):
  // a `publish` then answers the record unchanged, through the same view as a change.
  const [action] = resource.actions ?? []
  if (action && resource.scopes.write)
    it(`answers its first action (${action.name}) as openapi.json declares`, async () => {
      const { accessToken } = await writer()
      const { path } = await record(accessToken, true)
      const target = `${path}/${action.name}`
      const response = await apiClient(getServer(), accessToken)(target, { method: 'POST' })
      const body = await readJson(response)
      expect(response.status, JSON.stringify(body)).toBe(action.creates ? 201 : 200)
      expectDeclared('POST', target, response, body)
    })

  if (resource.singleton) return

  if (can('create'))
    it('creates with 201 and a Location that answers', async () => {
      const { accessToken } = await writer()
      const call = apiClient(getServer(), accessToken)
      const response = await call(createPath(), { method: 'POST', json: spec.sample?.(++counter) })
      expect(response.status).toBe(201)
      const body = await readJson(response)
      expect(response.headers.get('location')).toBe(`${getServer().issuer}${base}/${body.id}`)
      expect((await call(`${base}/${body.id}`)).status).toBe(200)
    })

  if (can('create'))
    it('replays a POST with the same Idempotency-Key and body; refuses another body', async () => {
      const { accessToken } = await writer()
      const call = apiClient(getServer(), accessToken)
      const key = `key-${Math.random()}`
      const json = spec.sample?.(++counter)
      const init = { method: 'POST', json, headers: { 'idempotency-key': key } }
      const first = await call(createPath(), init)
      const again = await call(createPath(), init)
      expect(first.status).toBe(201)
      expect(again.status).toBe(201)
      expect(again.headers.get('idempotent-replayed')).toBe('true')
      const replayed = await readJson(again)
      expect(replayed.id).toBe((await readJson(first)).id)
      expectDeclared('POST', createPath(), again, replayed)
      const other = await call(createPath(), {
        method: 'POST',
        json: spec.sample?.(++counter),
        headers: { 'idempotency-key': key },
      })
      await expectProblem(other, 422, 'idempotency_key_reused')
    })

  it('walks every record exactly once, even with inserts between pages', async () => {
    const { accessToken } = await writer()
    const call = apiClient(getServer(), accessToken)
    for (let i = 0; i < 5; i += 1) await record(accessToken)
    const all = await readJson(await call(`${base}?limit=100`))
    const before = new Set(all.data.map((r: Json) => r.id))
    expect(all.total_count).toBe(before.size)
    const seen: string[] = []
    let cursor: string | null = null
    do {
      const page: Json = await readJson(
        await call(`${base}?limit=2${cursor ? `&cursor=${cursor}` : ''}`),
      )
      expect(page.object).toBe('list')
      expect(page.data.length).toBeLessThanOrEqual(2)
      seen.push(...page.data.map((r: Json) => r.id))
      cursor = page.has_more ? page.next_cursor : null
      await record(accessToken)
    } while (cursor)
    expect(new Set(seen).size).toBe(seen.length)
    for (const id of before) expect(seen).toContain(id)
  })

  const { ownership } = resource
  if (ownership.kind === 'person' && can('update'))
    it(`refuses a ${ownership.limited.join(' or ')} any write to a record someone else owns: 403 problem, nothing changed`, async () => {
      const { accessToken } = await writer()
      const { path } = await record(accessToken)
      const before = await apiClient(getServer(), accessToken)(path)
      const etag = before.headers.get('etag')
      for (const role of ownership.limited) {
        const other = await issue(getServer(), { role, scope: scopes })
        const call = apiClient(getServer(), other.accessToken)
        const attempts: Array<[string, string, unknown]> = [
          ['PATCH', path, writes().update],
          ...(resource.actions ?? []).map((a): [string, string, unknown] => [
            'POST',
            `${path}/${a.name}`,
            undefined,
          ]),
          ...(can('delete') ? [['DELETE', path, undefined] as [string, string, unknown]] : []),
        ]
        for (const [method, target, json] of attempts) {
          const response = await call(target, { method, ...(json !== undefined && { json }) })
          const body = await expectProblem(response, 403, 'forbidden_role')
          expect(body.detail, `${method} ${target}`).toContain(ownership.rule)
        }
      }
      const after = await apiClient(getServer(), accessToken)(path)
      expect(after.status).toBe(200)
      expect(after.headers.get('etag')).toBe(etag)
    })

  if (resource.public)
    it('refuses callers without the read scope a filter, sort or search on what they cannot read: 400', async () => {
      const call = apiClient(getServer())
      const hiddenFilters = filterableOf(resource).filter(
        (name) => !filterableOf(resource, false).includes(name),
      )
      const hiddenSorts = sortableOf(resource).filter(
        (name) => !sortableOf(resource, false).includes(name),
      )
      for (const name of hiddenFilters) {
        const body = await expectProblem(await call(`${base}?${name}=x`), 400, 'invalid_request')
        expect(body.errors[0]).toMatchObject({ field: name, code: 'not_public' })
      }
      for (const name of hiddenSorts) {
        const body = await expectProblem(await call(`${base}?sort=${name}`), 400, 'invalid_request')
        expect(body.errors[0]).toMatchObject({ field: 'sort', code: 'not_public' })
      }
      // Whatever the public may use, it may still use.
      for (const name of sortableOf(resource, false))
        expect((await call(`${base}?sort=-${name}`)).status, name).toBe(200)
      const searchHidden = searchableOf(resource).filter(
        (name) => !searchableOf(resource, false).includes(name),
      )
      if (searchableOf(resource, false).length === 0 && searchHidden.length > 0)
        await expectProblem(await call(`${base}?q=x`), 400, 'invalid_request')
    })

  it('answers every crafted cursor with 400 invalid_cursor, never 500', async () => {
    const { accessToken } = await writer()
    for (let i = 0; i < 3; i += 1) await record(accessToken)
    const page = await readJson(await apiClient(getServer(), accessToken)(`${base}?limit=1`))
    expect(page.next_cursor).toEqual(expect.any(String))
    const other = resource.collection === 'courses' ? 'events' : 'courses'
    const cursors = craftedCursors(resource, other, page.next_cursor)
    const callers = [accessToken, ...(resource.public ? [undefined] : [])]
    for (const token of callers) {
      const call = apiClient(getServer(), token)
      expect((await call(`${base}?cursor=${plausibleCursor(resource)}`)).status).toBe(200)
      for (const [trick, cursor] of cursors) {
        const response = await call(`${base}?cursor=${encodeURIComponent(cursor)}`)
        expect(response.status, trick).toBe(400)
        expect((await readJson(response)).errors[0].code, trick).toBe('invalid_cursor')
      }
    }
  })

  it('refuses undeclared filters, sort keys, bad limits and foreign cursors with 400', async () => {
    const { accessToken } = await writer()
    const call = apiClient(getServer(), accessToken)
    for (const query of [
      'no_such_filter=1',
      'sort=no_such_field',
      'limit=0',
      'limit=101',
      'cursor=abc',
    ]) {
      const body = await expectProblem(await call(`${base}?${query}`), 400, 'invalid_request')
      expect(body.errors[0].field).toBe(query.split('=')[0])
    }
  })
}
