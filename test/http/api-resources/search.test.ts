import { describe, expect, it } from 'vitest'
import { ALL_SCOPES } from '../../../src/oauth/scopes.js'
import { useDemoServer } from '../../support/demo.js'
import { type Json, readJson } from '../../support/http.js'
import { issue } from '../../support/token-lifecycle.js'
import { apiClient } from './conventions.js'

// GET /api/v1/search: records across the school by text, each collection searched as its own
// list searches it (scopes ∩ role, the public projection), on the demo school.

const server = useDemoServer()

async function search(query: string, token?: string): Promise<{ status: number; body: Json }> {
  const response = await apiClient(server(), token)(`/api/v1/search?${query}`)
  return { status: response.status, body: await readJson(response) }
}

describe('GET /api/v1/search', () => {
  it('finds records of several collections for an owner holding every read scope', async () => {
    const scope = ALL_SCOPES.filter((s) => s.endsWith(':read')).join(' ')
    const { accessToken } = await issue(server(), { role: 'owner', scope })
    const { status, body } = await search('q=portrait', accessToken)
    expect(status).toBe(200)
    expect(body.object).toBe('search_results')
    const collections = new Set(body.results.map((r: Json) => r.collection))
    expect(collections.has('courses')).toBe(true)
    expect(body.results).toContainEqual(
      expect.objectContaining({
        collection: 'courses',
        object: 'course',
        label: 'Portrait Lighting',
      }),
    )
    expect(body.not_searched).toEqual([])
  })

  it('searches only what the token may read, and says what it did not search', async () => {
    const { accessToken } = await issue(server(), { role: 'owner', scope: 'courses:read' })
    const { body } = await search('q=a&limit=2', accessToken)
    const collections = new Set(body.results.map((r: Json) => r.collection))
    expect(collections.has('students')).toBe(false)
    expect(collections.has('orders')).toBe(false)
    expect(body.not_searched).toContainEqual({ collection: 'students', scope: 'students:read' })
    const perCollection = new Map<string, number>()
    for (const r of body.results)
      perCollection.set(r.collection, (perCollection.get(r.collection) ?? 0) + 1)
    expect(Math.max(...perCollection.values())).toBeLessThanOrEqual(2)
  })

  it('answers the public what the school shows it, and never a draft', async () => {
    const { status, body } = await search('q=photo')
    expect(status).toBe(200)
    expect(body.results.length).toBeGreaterThan(0)
    expect(
      body.results.filter((r: Json) => r.status === 'draft' || r.status === 'archived'),
    ).toEqual([])
    expect(body.results.some((r: Json) => r.collection === 'students')).toBe(false)
  })

  it('refuses a missing or empty q, and a limit out of range', async () => {
    expect((await search('')).status).toBe(422)
    expect((await search('q=%20')).status).toBe(422)
    expect((await search('q=a&limit=50')).status).toBe(422)
    expect((await search(`q=${'a'.repeat(201)}`)).status).toBe(422)
  })
})
