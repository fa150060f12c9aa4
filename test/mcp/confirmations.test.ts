import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from '@modelcontextprotocol/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, decide, newCourse } from '../http/approvals/held-calls.js'
import { createPerson } from '../support/flow.js'
import { type Json, readJson } from '../support/http.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { type Issued, issue, signIn } from '../support/token-lifecycle.js'
import { issueForMcp, MODERN, postModern, postRpc, textJson } from './support.js'

/**
 * Issue 35 over MCP: a call that needs a yes (deleting a course needs the person's, by the
 * default rule) is asked in the form the client supports, and runs once after the yes.
 */
let server: TestServer
beforeAll(async () => {
  server = await startTestServer({ env: { PORTICO_CONFIRMATIONS: 'on' } })
})
afterAll(async () => {
  await server?.close()
})

const SCOPES = 'courses:read courses:write'
const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

/** The same person's token for the REST API (an MCP token is for /mcp only). */
const restTokens = new Map<Issued, Promise<Issued>>()
function rest(agent: Issued): Promise<Issued> {
  let token = restTokens.get(agent)
  if (!token) {
    token = issue(server, { person: agent.person, scope: `${SCOPES} school:read` })
    restTokens.set(agent, token)
  }
  return token
}

/** A draft course to delete, made by the same person with a REST token. */
async function draft(agent: Issued, title: string): Promise<string> {
  return String((await newCourse(server, (await rest(agent)).accessToken, title)).id)
}

const exists = async (agent: Issued, id: string) =>
  (await call(server, (await rest(agent)).accessToken, `/api/v1/courses/${id}`)).status === 200

/** A tools/call of courses_delete at a 2025 revision, raw (direct path) or through the SDK. */
async function deleteAt(
  version: string,
  agent: Issued,
  id: string,
  viaSdk = false,
): Promise<{ status: number; body: Json }> {
  const response = await postRpc(
    server,
    {
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'courses_delete', arguments: { id }, ...(viaSdk && { _meta: {} }) },
    },
    { ...bearer(agent.accessToken), 'mcp-protocol-version': version },
  )
  return { status: response.status, body: await readJson(response) }
}

/** The v2 client at 2026-07-28, answering every form with `action` (none: no elicitation). */
async function modernClient(
  agent: Issued,
  elicitation: { form?: Record<string, never>; url?: Record<string, never> } | undefined,
  action: 'accept' | 'decline' | 'cancel' = 'accept',
) {
  const asked: Json[] = []
  const client = new ModernClient(
    { name: 'portico-test', version: '1.0.0' },
    {
      versionNegotiation: { mode: { pin: MODERN } },
      capabilities: elicitation ? { elicitation } : {},
    },
  )
  if (elicitation)
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(request.params as Json)
      return { action }
    })
  await client.connect(
    new ModernTransport(new URL(`${server.issuer}/mcp`), {
      requestInit: { headers: bearer(agent.accessToken) },
    }),
  )
  return { client, asked }
}

describe('a 2026-07-28 client that asks the person in a form', () => {
  it('runs the call once after the yes, and asks again for a second call', async () => {
    const agent = await issueForMcp(server, { role: 'owner', scope: SCOPES })
    const id = await draft(agent, 'Form yes')
    const { client, asked } = await modernClient(agent, { form: {} })
    const result = await client.callTool({ name: 'courses_delete', arguments: { id } })
    expect(result.isError).toBeFalsy()
    expect(asked).toHaveLength(1)
    expect(asked[0]).toMatchObject({ mode: 'form', message: expect.stringContaining('Form yes') })
    expect(await exists(agent, id)).toBe(false)
    // The activity record says who said yes (the person, in their client).
    const activity = await readJson(
      await call(server, (await rest(agent)).accessToken, `/api/v1/activity?record_id=${id}`),
    )
    const deleted = activity.data.find((entry: Json) => entry.operation === 'courses.delete')
    expect(deleted).toMatchObject({
      approval_id: expect.stringMatching(/^apr_/),
      approved_by: agent.person.user.id,
    })
    // The approval is spent: the same call of another draft asks again.
    const second = await draft(agent, 'Form yes again')
    await client.callTool({ name: 'courses_delete', arguments: { id: second } })
    expect(asked).toHaveLength(2)
    await client.close()
  })

  it('runs nothing on a decline or a cancel, and says so', async () => {
    const agent = await issueForMcp(server, { role: 'owner', scope: SCOPES })
    for (const action of ['decline', 'cancel'] as const) {
      const id = await draft(agent, `Form ${action}`)
      const { client } = await modernClient(agent, { form: {} }, action)
      const result = await client.callTool({ name: 'courses_delete', arguments: { id } })
      expect(result.isError).toBe(true)
      expect(textJson(result)).toMatchObject({
        status: 403,
        code: action === 'decline' ? 'approval_refused' : 'approval_cancelled',
      })
      expect(await exists(agent, id)).toBe(true)
      await client.close()
    }
  })

  it('sends a client that declared only URL elicitation to the approval page', async () => {
    const agent = await issueForMcp(server, { role: 'owner', scope: SCOPES })
    const id = await draft(agent, 'Page first')
    let approved = false
    const { client, asked } = await modernClient(agent, { url: {} })
    // The person approves on the page when the client opens it, then the client retries.
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(request.params as Json)
      const url = String((request.params as Json).url)
      await decide(server, agent.person, { approval_url: url }, 'approve')
      approved = true
      return { action: 'accept' }
    })
    const result = await client.callTool({ name: 'courses_delete', arguments: { id } })
    expect(result.isError).toBeFalsy()
    expect(approved).toBe(true)
    expect(asked[0]).toMatchObject({ mode: 'url', url: expect.stringContaining('/approvals/apr_') })
    expect(await exists(agent, id)).toBe(false)
    await client.close()
  })

  it('never asks an owner confirmation in the agent’s client, even one that could show a form', async () => {
    const agent = await issueForMcp(server, {
      role: 'owner',
      scope: 'members:read members:write',
    })
    const member = await createPerson(server, 'editor')
    const { client, asked } = await modernClient(agent, { form: {}, url: {} })
    let decided = false
    client.setRequestHandler('elicitation/create', async (request) => {
      const params = request.params as Json
      asked.push(params)
      if (params.mode === 'url') {
        // An admin says yes on Portico's page; the client then retries.
        const admin = await createPerson(server, 'admin')
        await decide(server, admin, { approval_url: params.url }, 'approve')
        decided = true
      }
      return { action: 'accept' }
    })
    const result = await client.callTool({
      name: 'members_update',
      arguments: { id: member.user.id, role: 'admin' },
    })
    expect(asked.map((params) => params.mode)).toEqual(['url'])
    expect(decided).toBe(true)
    expect(result.isError).toBeFalsy()
    expect(result.structuredContent).toMatchObject({ role: 'admin' })
    await client.close()
  })

  it('answers a client that declared no elicitation with the problem and its approval_url', async () => {
    const agent = await issueForMcp(server, { role: 'owner', scope: SCOPES })
    const id = await draft(agent, 'No elicitation')
    const { client } = await modernClient(agent, undefined)
    const result = await client.callTool({ name: 'courses_delete', arguments: { id } })
    expect(result.isError).toBe(true)
    expect(textJson(result)).toMatchObject({
      code: 'approval_required',
      approval_url: expect.stringContaining('/approvals/apr_'),
    })
    expect(await exists(agent, id)).toBe(true)
    await client.close()
  })
})

describe('the state a form carries through the client', () => {
  const FORMS = { 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } } }
  const deleting = (agent: Issued, id: string, retry?: Record<string, unknown>) =>
    postModern(
      server,
      'tools/call',
      { name: 'courses_delete', arguments: { id }, ...retry },
      { headers: bearer(agent.accessToken), meta: FORMS },
    ).then(readJson)

  it('is refused when forged, and asks again when it was given for other arguments', async () => {
    const agent = await issueForMcp(server, { role: 'owner', scope: SCOPES })
    const first = await draft(agent, 'Asked for this one')
    const other = await draft(agent, 'Not asked for')
    const asked = await deleting(agent, first)
    expect(asked.result).toMatchObject({
      resultType: 'input_required',
      inputRequests: { approval: { method: 'elicitation/create' } },
      requestState: expect.any(String),
    })
    const yes = { approval: { action: 'accept' } }
    const forged = await deleting(agent, first, {
      inputResponses: yes,
      requestState: `${asked.result.requestState}x`,
    })
    expect(forged.error).toMatchObject({ code: -32602 })
    // The yes given for the first course is not a yes for the other one: it asks again.
    const elsewhere = await deleting(agent, other, {
      inputResponses: yes,
      requestState: asked.result.requestState,
    })
    expect(elsewhere.result).toMatchObject({ resultType: 'input_required' })
    expect(await exists(agent, first)).toBe(true)
    expect(await exists(agent, other)).toBe(true)
    // With the state given for it, the first runs, once.
    const ran = await deleting(agent, first, {
      inputResponses: yes,
      requestState: asked.result.requestState,
    })
    expect(ran.result.isError).toBeFalsy()
    expect(await exists(agent, first)).toBe(false)
  })

  it('is no yes for another grant', async () => {
    const agent = await issueForMcp(server, { role: 'owner', scope: SCOPES })
    const id = await draft(agent, 'Another grant')
    const asked = await deleting(agent, id)
    const other = await issueForMcp(server, { role: 'owner', scope: SCOPES })
    const replayed = await postModern(
      server,
      'tools/call',
      {
        name: 'courses_delete',
        arguments: { id },
        inputResponses: { approval: { action: 'accept' } },
        requestState: asked.result.requestState,
      },
      { headers: bearer(other.accessToken), meta: FORMS },
    ).then(readJson)
    expect(replayed.result).toMatchObject({ resultType: 'input_required' })
    expect(await exists(agent, id)).toBe(true)
  })
})

describe('2025 revisions', () => {
  it('asks a 2025-11-25 client with the URL-elicitation-required error, as the SDK would', async () => {
    const agent = await issueForMcp(server, { role: 'owner', scope: SCOPES })
    const id = await draft(agent, 'Old client')
    const direct = await deleteAt('2025-11-25', agent, id)
    const viaSdk = await deleteAt('2025-11-25', agent, id, true)
    expect(direct).toEqual(viaSdk)
    expect(direct.body.error).toMatchObject({
      code: -32042,
      data: {
        elicitations: [
          {
            mode: 'url',
            elicitationId: expect.stringMatching(/^apr_/),
            url: expect.stringContaining('/approvals/apr_'),
            message: expect.stringContaining('Old client'),
          },
        ],
      },
    })
    expect(await exists(agent, id)).toBe(true)
    // After the yes on the page, the same call runs once.
    const url = direct.body.error.data.elicitations[0].url
    await decide(server, await signIn(server, agent.person), { approval_url: url }, 'approve')
    const ran = await deleteAt('2025-11-25', agent, id)
    expect(ran.body.result.isError).toBeFalsy()
    expect(await exists(agent, id)).toBe(false)
  })

  it('answers an older client with the tool error REST’s problem makes', async () => {
    const agent = await issueForMcp(server, { role: 'owner', scope: SCOPES })
    const id = await draft(agent, 'Older client')
    const { body } = await deleteAt('2025-06-18', agent, id)
    expect(body.result.isError).toBe(true)
    expect(JSON.parse(body.result.content[0].text)).toMatchObject({
      status: 403,
      code: 'approval_required',
      approval_url: expect.stringContaining('/approvals/apr_'),
    })
  })
})
