import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { members } from '../../../src/api/people/members.resource.js'
import { readJson } from '../../support/http.js'
import { startTestServer, type TestServer } from '../../support/server.js'
import { issue } from '../../support/token-lifecycle.js'
import { apiClient, checkConventions } from './conventions.js'

const SCOPE = 'members:read members:write'
let server: TestServer
let lonely: TestServer
beforeAll(async () => {
  ;[server, lonely] = await Promise.all([startTestServer(), startTestServer()])
})
afterAll(async () => {
  await Promise.all([server?.close(), lonely?.close()])
})

describe('/api/v1/members: the conventions', () => {
  checkConventions(() => server, {
    resource: members,
    sample: (n) => ({
      email: `Member${n}-${Math.random().toString(36).slice(2)}@Example.com`,
      role: 'editor',
    }),
    update: { name: 'Renamed' },
    invalid: { body: { role: 'student' }, field: 'role' },
    deniedRole: 'editor',
  })
})

describe('/api/v1/members: the team’s rules', () => {
  it('invites with a lower-cased e-mail, in the invited state, never twice', async () => {
    const call = apiClient(server, (await issue(server, { scope: SCOPE })).accessToken)
    const invited = await call('/api/v1/members', {
      method: 'POST',
      json: { email: 'Sam@Example.com', role: 'teaching_assistant' },
    })
    expect(invited.status).toBe(201)
    expect(await readJson(invited)).toMatchObject({
      email: 'sam@example.com',
      name: 'sam',
      status: 'invited',
      object: 'member',
    })
    const again = await call('/api/v1/members', {
      method: 'POST',
      json: { email: 'sam@example.com', role: 'editor' },
    })
    expect((await readJson(again)).errors[0]).toMatchObject({ field: 'email', code: 'taken' })
    const patched = await call(`/api/v1/members?email=sam@example.com`)
    expect((await readJson(patched)).data).toHaveLength(1)
  })

  it('never lets the last owner be demoted, suspended or removed', async () => {
    const owner = await issue(lonely, { scope: SCOPE })
    const call = apiClient(lonely, owner.accessToken)
    const self = `/api/v1/members/${owner.person.user.id}`
    for (const json of [{ role: 'admin' }, { status: 'suspended' }]) {
      const response = await call(self, { method: 'PATCH', json })
      expect(response.status).toBe(409)
      expect((await readJson(response)).detail).toMatch(/last owner/)
    }
    expect((await call(self, { method: 'DELETE' })).status).toBe(409)
    const second = await call('/api/v1/members', {
      method: 'POST',
      json: { email: 'co@example.com', role: 'admin' },
    })
    const secondId = (await readJson(second)).id
    expect(
      (await call(`/api/v1/members/${secondId}`, { method: 'PATCH', json: { role: 'owner' } }))
        .status,
    ).toBe(200)
    expect((await call(self, { method: 'PATCH', json: { role: 'admin' } })).status).toBe(200)
  })

  it('lets nobody raise their own role or grant above their own, and only owners touch owners', async () => {
    const admin = await issue(server, { role: 'admin', scope: SCOPE })
    const owner = await issue(server, { role: 'owner', scope: 'account:read' })
    const call = apiClient(server, admin.accessToken)
    const cases: Array<[string, unknown]> = [
      [`/api/v1/members/${admin.person.user.id}`, { role: 'owner' }],
      [`/api/v1/members/${owner.person.user.id}`, { role: 'editor' }],
      [`/api/v1/members/${owner.person.user.id}`, { name: 'Renamed by an admin' }],
    ]
    for (const [path, json] of cases) {
      const response = await call(path, { method: 'PATCH', json })
      expect(response.status, JSON.stringify(json)).toBe(403)
      expect((await readJson(response)).code).toBe('forbidden_role')
    }
    const invite = await call('/api/v1/members', {
      method: 'POST',
      json: { email: 'boss@example.com', role: 'owner' },
    })
    expect((await readJson(invite)).code).toBe('forbidden_role')
  })

  it('suspends at once, and removing a member revokes their tokens and keeps the account', async () => {
    const call = apiClient(server, (await issue(server, { scope: SCOPE })).accessToken)
    const editor = await issue(server, { role: 'editor', scope: 'courses:read' })
    const editorPath = `/api/v1/members/${editor.person.user.id}`
    const editorCall = apiClient(server, editor.accessToken)
    expect((await editorCall('/api/v1/courses')).status).toBe(200)
    const suspended = await call(editorPath, { method: 'PATCH', json: { status: 'suspended' } })
    expect((await readJson(suspended)).status).toBe('suspended')
    expect((await editorCall('/api/v1/courses')).status).toBe(401)
    await call(editorPath, { method: 'PATCH', json: { status: 'active' } })
    expect((await editorCall('/api/v1/courses')).status).toBe(200)
    expect((await call(editorPath, { method: 'DELETE' })).status).toBe(204)
    expect((await call(editorPath)).status).toBe(404)
    expect((await editorCall('/api/v1/courses')).status).toBe(401)
    const account = await server.deps.users.findById(editor.person.user.id)
    expect(account?.role).toBe('student')
  })
})
