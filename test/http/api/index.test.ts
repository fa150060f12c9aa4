import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Role } from '../../../src/oauth/roles.js'
import { readJson } from '../../support/http.js'
import { startTestServer, type TestServer } from '../../support/server.js'
import { ACCOUNT, API, callApi, issue } from '../../support/token-lifecycle.js'

const SCHOOL = 'Riverside Academy of Music'

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
  const now = server.deps.clock.now()
  await server.deps.database.db
    .insertInto('school')
    .values({ id: 'school', name: SCHOOL, created_at: now, updated_at: now })
    .execute()
})
afterAll(async () => {
  await server?.close()
})

describe('GET /api/v1: the index for tools and agents', () => {
  it('answers an anonymous caller with the school, no scopes and every collection', async () => {
    const response = await server.fetch(API)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/^application\/json/)
    expect(response.headers.get('cache-control')).toBe('no-store')
    const body = await readJson(response)
    expect(body.object).toBe('api_index')
    expect(body.school).toEqual({ name: SCHOOL })
    expect(body.caller).toEqual({ kind: 'anonymous' })
    expect(body.scopes).toEqual([])
    expect(body.collections[0]).toEqual({
      name: 'account',
      href: `${server.issuer}${ACCOUNT}`,
      scopes: { read: 'account:read', write: 'account:write' },
      can_read: false,
      can_write: false,
    })
    expect(body.collections.map((c: { name: string }) => c.name)).toEqual(
      expect.arrayContaining(['account', 'school', 'appearance', 'courses', 'course_categories']),
    )
    expect(body.collections.every((c: { can_read: boolean }) => !c.can_read)).toBe(true)
    expect(body.resource_metadata).toBe(`${server.issuer}/.well-known/oauth-protected-resource`)
  })

  it('names a student caller a learner, with the granted scopes', async () => {
    const issued = await issue(server, { role: 'student', scope: 'openid account:read' })
    const body = await readJson(await callApi(server, API, { token: issued.accessToken }))
    expect(body.school).toEqual({ name: SCHOOL })
    expect(body.caller).toEqual({
      kind: 'learner',
      role: 'student',
      user_id: issued.person.user.id,
      client_id: issued.client.clientId,
    })
    expect([...body.scopes].sort()).toEqual(['account:read', 'openid'])
    expect(body.collections[0]).toMatchObject({ can_read: true, can_write: false })
  })

  const team: Role[] = ['owner', 'admin', 'editor', 'lecturer', 'teaching_assistant']
  for (const role of team) {
    it(`names a ${role} caller part of the team, with the role`, async () => {
      const issued = await issue(server, { role, scope: 'account:read account:write' })
      const body = await readJson(await callApi(server, API, { token: issued.accessToken }))
      expect(body.caller).toMatchObject({ kind: 'team', role, user_id: issued.person.user.id })
      expect([...body.scopes].sort()).toEqual(['account:read', 'account:write'])
      expect(body.collections[0]).toMatchObject({ can_read: true, can_write: true })
    })
  }

  it('lists scopes as granted to the token, not everything the role could grant', async () => {
    const issued = await issue(server, { role: 'owner', scope: 'courses:read' })
    const body = await readJson(await callApi(server, API, { token: issued.accessToken }))
    expect(body.scopes).toEqual(['courses:read'])
    expect(body.collections[0]).toMatchObject({ can_read: false, can_write: false })
  })

  it('every collection link works with a token holding the scope it names', async () => {
    const anonymous = await readJson(await server.fetch(API))
    const reads = anonymous.collections.map((c: { scopes: { read: string } }) => c.scopes.read)
    const issued = await issue(server, { scope: [...new Set(reads)].join(' ') })
    const body = await readJson(await callApi(server, API, { token: issued.accessToken }))
    for (const collection of body.collections) {
      const response = await fetch(collection.href, {
        headers: { authorization: `Bearer ${issued.accessToken}` },
      })
      expect(response.status, collection.href).toBe(200)
      expect(response.headers.get('data-visibility') ?? 'full').toBe('full')
      expect(collection.can_read).toBe(true)
    }
  })

  it('every collection appears in the OpenAPI document with the scopes the index names', async () => {
    const openapi = await readJson(await server.fetch('/openapi.json'))
    const index = await readJson(await server.fetch(API))
    for (const collection of index.collections) {
      const path = new URL(collection.href).pathname
      const operations = openapi.paths[path]
      expect(operations, path).toBeDefined()
      // Collections with a public projection also answer without a token ({}).
      expect(operations.get.security).toContainEqual({ oauth2: [collection.scopes.read] })
      if (collection.scopes.write) {
        const writes = Object.values(openapi.paths).flatMap((item) =>
          Object.values(item as Record<string, { security?: unknown[] }>).filter((op) =>
            JSON.stringify(op.security ?? []).includes(`"${collection.scopes.write}"`),
          ),
        )
        expect(writes.length, collection.scopes.write).toBeGreaterThan(0)
      }
    }
  })
})
