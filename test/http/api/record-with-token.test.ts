import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readJson } from '../../support/http.js'
import { startTestServer, type TestServer } from '../../support/server.js'
import { callApi, expectBearerFailure, issue, revoke } from '../../support/token-lifecycle.js'

/**
 * A GET of one record reads the record in the same statement as the caller's token
 * (bearer.ts `Companion`, the /api/v1 hook): read before the token is known to be good, and
 * before the caller's scopes are. What it found may only ever answer a caller whom the
 * operation itself would have let read the full record.
 */
let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(async () => {
  await server?.close()
})

const plan = { name: 'Full access', type: 'one_time', price: { amount: 4900, currency: 'USD' } }

/** A draft course (hidden from the public) and a published one, made by an editor. */
async function twoCourses(): Promise<{ draft: string; draftSlug: string; published: string }> {
  const { accessToken } = await issue(server, {
    role: 'editor',
    scope: 'courses:read courses:write',
  })
  const create = async (title: string) => {
    const response = await callApi(server, '/api/v1/courses', {
      token: accessToken,
      init: {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ title, pricing_plans: [plan] }),
      },
    })
    expect(response.status).toBe(201)
    return readJson(response)
  }
  const draft = await create('Hidden Draft')
  const published = await create('Open Course')
  const publish = await callApi(server, `/api/v1/courses/${published.id}/publish`, {
    token: accessToken,
    init: { method: 'POST' },
  })
  expect(publish.status).toBe(200)
  return { draft: draft.id, draftSlug: draft.slug, published: published.id }
}

describe('a GET of one record, read with the token', () => {
  it('answers the full record, by id and by slug, to a token with the read scope', async () => {
    const { draft, draftSlug } = await twoCourses()
    const { accessToken } = await issue(server, { scope: 'courses:read' })
    for (const key of [draft, draftSlug]) {
      const response = await callApi(server, `/api/v1/courses/${key}`, { token: accessToken })
      expect(response.status).toBe(200)
      expect(response.headers.get('data-visibility')).toBe('full')
      expect((await readJson(response)).id).toBe(draft)
    }
  })

  it('never shows a hidden record to a token without the read scope: 404, as to the public', async () => {
    const { draft, draftSlug, published } = await twoCourses()
    const { accessToken } = await issue(server, { scope: 'account:read' })
    for (const key of [draft, draftSlug]) {
      const response = await callApi(server, `/api/v1/courses/${key}`, { token: accessToken })
      expect(response.status).toBe(404)
      expect((await readJson(response)).code).toBe('not_found')
    }
    const open = await callApi(server, `/api/v1/courses/${published}`, { token: accessToken })
    expect(open.status).toBe(200)
    expect(open.headers.get('data-visibility')).toBe('public')
    const body = await readJson(open)
    expect(body.id).toBe(published)
    expect(body).not.toHaveProperty('status')
  })

  it('answers 401 for a revoked or unknown token, whatever the record', async () => {
    const { draft } = await twoCourses()
    const issued = await issue(server, { scope: 'courses:read' })
    expect(
      (await callApi(server, `/api/v1/courses/${draft}`, { token: issued.accessToken })).status,
    ).toBe(200)
    expect((await revoke(server, issued.client, issued.accessToken)).status).toBe(200)
    for (const token of [issued.accessToken, 'pat_unknown-token-of-no-one']) {
      const response = await callApi(server, `/api/v1/courses/${draft}`, { token })
      await expectBearerFailure(server, response, { status: 401, error: 'invalid_token' })
    }
  })

  it('answers 404 for a record that does not exist, and sees a change at once', async () => {
    const { draft } = await twoCourses()
    const { accessToken } = await issue(server, {
      role: 'editor',
      scope: 'courses:read courses:write',
    })
    const missing = await callApi(server, '/api/v1/courses/crs_00000000000000000000000000', {
      token: accessToken,
    })
    expect(missing.status).toBe(404)
    const renamed = await callApi(server, `/api/v1/courses/${draft}`, {
      token: accessToken,
      init: {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'Renamed Draft' }),
      },
    })
    expect(renamed.status).toBe(200)
    const read = await callApi(server, `/api/v1/courses/${draft}`, { token: accessToken })
    expect((await readJson(read)).title).toBe('Renamed Draft')
  })
})
