import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Db } from '../../../src/storage/schema.js'
import { connect, issueForMcp, postRpc, textJson } from '../../mcp/support.js'
import { type Json, readJson } from '../../support/http.js'
import { startTestServer, type TestServer } from '../../support/server.js'
import { issue } from '../../support/token-lifecycle.js'
import { apiClient } from '../api-resources/conventions.js'

// The activity record through every binding (issue 36): a write refused over MCP is counted as
// over REST, and the API index lists the activity collection to those it is for.

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(async () => {
  await server?.close()
})

const refusalsOf = async (grantId: string) => {
  const row = await (server.deps.database.db as Db)
    .selectFrom('activity_refusals')
    .selectAll()
    .where('grant_id', '=', grantId)
    .executeTakeFirst()
  return Number(row?.count ?? 0)
}
const toolCall = (name: string, args: object) => ({
  jsonrpc: '2.0',
  id: 2,
  method: 'tools/call',
  params: { name, arguments: args },
})
const course = {
  title: 'Needs write',
  pricing_plans: [{ name: 'Free', type: 'free', price: { amount: 0, currency: 'USD' } }],
}

describe('writes refused over MCP are counted, as over REST', () => {
  it('a step-up challenge for a write scope counts; one for a read scope does not', async () => {
    const issued = await issueForMcp(server, { role: 'editor', scope: 'courses:read' })
    const bearer = { authorization: `Bearer ${issued.accessToken}` }
    const refused = await postRpc(server, toolCall('courses_create', course), bearer)
    expect(refused.status).toBe(403)
    expect((await readJson(refused)).code).toBe('insufficient_scope')
    expect(await refusalsOf(issued.grantId)).toBe(1)
    // A batch of writes is one refused request, as one REST call is.
    const batch = await postRpc(
      server,
      [toolCall('courses_create', course), { ...toolCall('courses_create', course), id: 3 }],
      bearer,
    )
    expect(batch.status).toBe(403)
    expect(await refusalsOf(issued.grantId)).toBe(2)
    // A read beyond the token's scopes is challenged too, and not counted (nor over REST).
    const read = await postRpc(server, toolCall('coupons_list', {}), bearer)
    expect(read.status).toBe(403)
    expect(await refusalsOf(issued.grantId)).toBe(2)
  })

  it('a write tool the role may not use counts, as REST counts forbidden_role', async () => {
    const issued = await issueForMcp(server, { role: 'lecturer', scope: 'courses:read' })
    const client = await connect(server, issued.accessToken)
    try {
      const refused = await client.callTool({ name: 'courses_create', arguments: course })
      expect(refused.isError).toBe(true)
      expect(textJson(refused)).toMatchObject({ status: 403, code: 'forbidden_role' })
      expect(await refusalsOf(issued.grantId)).toBe(1)
      // An allowed read is no refusal.
      const read = await client.callTool({ name: 'courses_list', arguments: {} })
      expect(read.isError).toBeFalsy()
      expect(await refusalsOf(issued.grantId)).toBe(1)
    } finally {
      await client.close()
    }
  })
})

describe('the API index lists the activity collection to those who may read it', () => {
  const activityIn = async (token?: string) => {
    const response = token
      ? await apiClient(server, token)('/api/v1')
      : await server.fetch('/api/v1')
    expect(response.status).toBe(200)
    const body = await readJson(response)
    return (body.collections as Json[]).find((c) => c.name === 'activity')
  }

  it('owners and admins see it (readable with school:read); no one else does', async () => {
    const owner = await issue(server, { role: 'owner', scope: 'school:read' })
    expect(await activityIn(owner.accessToken)).toEqual({
      name: 'activity',
      href: `${server.issuer}/api/v1/activity`,
      scopes: { read: 'school:read' },
      can_read: true,
      can_write: false,
    })
    // The collection is theirs to read; this token needs school:read for it.
    const admin = await issue(server, { role: 'admin', scope: 'courses:read' })
    expect(await activityIn(admin.accessToken)).toMatchObject({ can_read: false })
    // An editor holds school:read, but the activity record is not for the role.
    const editor = await issue(server, { role: 'editor', scope: 'school:read' })
    expect(await activityIn(editor.accessToken)).toBeUndefined()
    const learner = await issue(server, { role: 'student', scope: 'account:read' })
    expect(await activityIn(learner.accessToken)).toBeUndefined()
    expect(await activityIn()).toBeUndefined()
    // What the index offers, the collection answers.
    expect((await apiClient(server, owner.accessToken)('/api/v1/activity')).status).toBe(200)
    expect((await apiClient(server, editor.accessToken)('/api/v1/activity')).status).toBe(403)
  })
})
