import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { jsonInit } from '../../support/http.js'
import { startTestServer, type TestServer } from '../../support/server.js'
import { ACCOUNT, type Issued, issue } from '../../support/token-lifecycle.js'

/** A GET that answers an ETag answers 304 while the copy the client holds is current. */
let server: TestServer
let owner: Issued
let courseId: string
beforeAll(async () => {
  server = await startTestServer()
  owner = await issue(server, { role: 'owner', scope: 'courses:read courses:write account:read' })
  const created = await server.fetch(
    '/api/v1/courses',
    jsonInit(
      {
        title: 'Conditional',
        pricing_plans: [
          { name: 'Full access', type: 'one_time', price: { amount: 4900, currency: 'USD' } },
        ],
      },
      { authorization: `Bearer ${owner.accessToken}` },
    ),
  )
  expect(created.status).toBe(201)
  courseId = ((await created.json()) as { id: string }).id
})
afterAll(async () => {
  await server?.close()
})

const get = (path: string, headers: Record<string, string> = {}, method = 'GET') =>
  server.fetch(path, {
    method,
    headers: { authorization: `Bearer ${owner.accessToken}`, ...headers },
  })

describe('If-None-Match on the API (RFC 9110 §13.1.2)', () => {
  it('answers 304 with no body and the same headers while the ETag is current', async () => {
    const first = await get(`/api/v1/courses/${courseId}`)
    expect(first.status).toBe(200)
    const etag = first.headers.get('etag') ?? ''
    expect(etag).toMatch(/^"/)
    for (const held of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const again = await get(`/api/v1/courses/${courseId}`, { 'if-none-match': held })
      expect({ held, status: again.status, body: await again.text() }).toEqual({
        held,
        status: 304,
        body: '',
      })
      expect(again.headers.get('etag')).toBe(etag)
      expect(again.headers.get('cache-control')).toBe(first.headers.get('cache-control'))
      expect(again.headers.get('data-visibility')).toBe('full')
    }
  })

  it('answers the record again once it changed, or for another ETag', async () => {
    const before = (await get(`/api/v1/courses/${courseId}`)).headers.get('etag') ?? ''
    const other = await get(`/api/v1/courses/${courseId}`, { 'if-none-match': '"other"' })
    expect(other.status).toBe(200)
    const changed = await server.fetch(`/api/v1/courses/${courseId}`, {
      method: 'PATCH',
      headers: {
        authorization: `Bearer ${owner.accessToken}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ subtitle: 'changed' }),
    })
    expect(changed.status).toBe(200)
    const after = await get(`/api/v1/courses/${courseId}`, { 'if-none-match': before })
    expect(after.status).toBe(200)
    expect(after.headers.get('etag')).not.toBe(before)
    expect(((await after.json()) as { subtitle: string }).subtitle).toBe('changed')
  })

  it('keeps one ETag per projection: the whole record’s does not match a projection', async () => {
    const whole = (await get(`/api/v1/courses/${courseId}`)).headers.get('etag') ?? ''
    const projected = await get(`/api/v1/courses/${courseId}?fields=title`, {
      'if-none-match': whole,
    })
    expect(projected.status).toBe(200)
    const tag = projected.headers.get('etag') ?? ''
    const again = await get(`/api/v1/courses/${courseId}?fields=title`, { 'if-none-match': tag })
    expect(again.status).toBe(304)
  })

  it('answers the account, a hand-written read, the same way; HEAD too', async () => {
    const first = await get(ACCOUNT)
    const etag = first.headers.get('etag') ?? ''
    expect((await get(ACCOUNT, { 'if-none-match': etag })).status).toBe(304)
    expect((await get(ACCOUNT, { 'if-none-match': etag }, 'HEAD')).status).toBe(304)
  })

  it('never turns a write into 304, nor a refusal', async () => {
    const etag = (await get(`/api/v1/courses/${courseId}`)).headers.get('etag') ?? ''
    const patch = await server.fetch(`/api/v1/courses/${courseId}`, {
      method: 'PATCH',
      headers: {
        authorization: `Bearer ${owner.accessToken}`,
        'content-type': 'application/json',
        'if-none-match': etag,
      },
      body: JSON.stringify({}),
    })
    expect(patch.status).not.toBe(304)
    const missing = await get('/api/v1/courses/crs_missing', { 'if-none-match': '*' })
    expect(missing.status).toBe(404)
  })

  it('is documented: If-None-Match and 304 on every GET that answers an ETag', async () => {
    const doc = (await (await server.fetch('/openapi.json')).json()) as {
      paths: Record<
        string,
        Record<
          string,
          {
            parameters?: Array<{ name: string }>
            responses: Record<string, { headers?: Record<string, unknown> }>
          }
        >
      >
    }
    let conditional = 0
    for (const [path, item] of Object.entries(doc.paths)) {
      const get = item.get
      if (!get?.responses['200']?.headers?.ETag) continue
      expect({ path, has304: '304' in get.responses }).toEqual({ path, has304: true })
      expect({ path, param: get.parameters?.some((p) => p.name === 'If-None-Match') }).toEqual({
        path,
        param: true,
      })
      conditional += 1
    }
    expect(conditional).toBeGreaterThan(20)
  })
})
