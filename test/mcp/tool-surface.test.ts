import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { API_OPERATION_SPECS, AREA_NAMES } from '../../src/api/operations.js'
import { CORE_OPERATIONS } from '../../src/mcp/surface.js'
import { roleAllows } from '../../src/oauth/roles.js'
import { ALL_SCOPES } from '../../src/oauth/scopes.js'
import { readJson } from '../support/http.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { parseChallenge } from '../support/www-authenticate.js'
import { connect, issueForMcp, postRpc, textJson } from './support.js'

// The tool surface a model can hold (issue 34): a small core by default, toolsets by area on
// request, read-only on request or by the token, only what the scopes ∩ role allow; and a
// catalogue through which every operation is found, described and run. Tokens are counted as
// a model reads a tool (name, title, description, input schema, annotations; o200k).

let server: TestServer
const clients: Client[] = []

beforeAll(async () => {
  server = await startTestServer()
})
afterAll(async () => {
  for (const client of clients) await client.close()
  await server?.close()
})

type Tool = Awaited<ReturnType<Client['listTools']>>['tools'][number]
const tokensOf = (tools: Tool[]) =>
  countTokens(
    JSON.stringify(
      tools.map(({ name, title, description, inputSchema, annotations }) => ({
        name,
        title,
        description,
        inputSchema,
        annotations,
      })),
    ),
  )

const ROLES = ['owner', 'admin', 'editor', 'lecturer', 'teaching_assistant', 'student'] as const
const everyScopeOf = (role: (typeof ROLES)[number]) =>
  ALL_SCOPES.filter((s) => roleAllows(role, s)).join(' ')

async function client(scope: string, role: (typeof ROLES)[number] = 'owner', path = '/mcp') {
  const { accessToken } = await issueForMcp(server, { role, scope })
  const connected = await connect(server, accessToken, path)
  clients.push(connected)
  return connected
}
const listed = async (c: Client) => (await c.listTools()).tools

describe('the core surface', () => {
  it('names only operations of the catalogue', () => {
    const names = new Set(API_OPERATION_SPECS.map((o) => o.name))
    expect([...CORE_OPERATIONS].filter((name) => !names.has(name))).toEqual([])
  })

  it.each(ROLES)(
    'holds at most 20 tools and 8,000 tokens for a %s holding every scope',
    async (role) => {
      const tools = await listed(await client(everyScopeOf(role), role))
      const tokens = tokensOf(tools)
      console.info(`${role}: ${tools.length} tools, ${tokens} tokens`)
      expect(tools.length).toBeLessThanOrEqual(20)
      expect(tokens).toBeLessThanOrEqual(8000)
      expect(tools.map((t) => t.name)).toEqual(
        expect.arrayContaining(['find_operations', 'describe_operation', 'run_read_operation']),
      )
    },
  )

  it('lists only what the token’s scopes allow, and no write tool without a write scope', async () => {
    const names = (await listed(await client('courses:read'))).map((t) => t.name)
    expect(names).toContain('courses_list')
    expect(names).not.toContain('students_list')
    expect(names).not.toContain('courses_update')
    expect(names).not.toContain('run_write_operation')
  })

  it('lists no write tool when asked read-only', async () => {
    const tools = await listed(await client(everyScopeOf('owner'), 'owner', '/mcp?read_only=true'))
    expect(tools.filter((t) => !t.annotations?.readOnlyHint).map((t) => t.name)).toEqual([])
    expect(tools.length).toBeGreaterThan(3)
    expect(tokensOf(tools)).toBeLessThanOrEqual(8000)
  })
})

describe('toolsets', () => {
  it.each(AREA_NAMES)('%s adds at most 40 tools to the core, all of its area', async (area) => {
    const scope = everyScopeOf('owner')
    const core = await listed(await client(scope))
    const withSet = await listed(await client(scope, 'owner', `/mcp?toolsets=${area}`))
    const added = withSet.filter((t) => !core.some((c) => c.name === t.name))
    expect(added.length).toBeGreaterThan(0)
    expect(added.length).toBeLessThanOrEqual(40)
    expect(tokensOf(withSet)).toBeLessThanOrEqual(35_000)
  })

  it('all lists every operation’s tool the token may use, within 35,000 tokens', async () => {
    const all = await listed(await client(everyScopeOf('owner'), 'owner', '/mcp?toolsets=all'))
    const tokens = tokensOf(all)
    console.info(`toolsets=all: ${all.length} tools, ${tokens} tokens`)
    expect(all.length).toBeGreaterThan(130)
    expect(tokens).toBeLessThanOrEqual(35_000)
  })

  it.each(ROLES)('all stays within 35,000 tokens for a %s holding every scope', async (role) => {
    const all = await listed(await client(everyScopeOf(role), role, '/mcp?toolsets=all'))
    expect(tokensOf(all)).toBeLessThanOrEqual(35_000)
  })

  it('refuses an unknown toolset with the toolsets there are', async () => {
    const { accessToken } = await issueForMcp(server, { role: 'owner', scope: 'courses:read' })
    const response = await server.fetch('/mcp?toolsets=billing', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${accessToken}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    })
    expect(response.status).toBe(400)
    const body = await readJson(response)
    expect(body.error.code).toBe(-32602)
    expect(body.error.message).toMatch(/unknown toolset "billing".*catalog.*all/)
  })
})

describe('the catalogue reaches every operation', () => {
  it('finds, describes and runs every operation the owner may use', async () => {
    const owner = await client(everyScopeOf('owner'))
    const every = (await listed(await client(everyScopeOf('owner'), 'owner', '/mcp?toolsets=all')))
      .map((t) => t.name)
      .filter(
        (n) => !['find_operations', 'describe_operation'].includes(n) && !n.startsWith('run_'),
      )
    const found = textJson(
      await owner.callTool({ name: 'find_operations', arguments: { limit: 150 } }),
    )
    const names = (found.operations as Array<{ operation: string }>).map((o) => o.operation)
    expect(new Set(names)).toEqual(new Set(every))
    for (const name of every) {
      const described = textJson(
        await owner.callTool({ name: 'describe_operation', arguments: { operation: name } }),
      )
      expect({ name, object: described.object }).toEqual({ name, object: 'operation' })
      expect(described.arguments).toMatchObject({ type: 'object' })
      expect(described.example).toBeTypeOf('object')
    }
  })

  it('finds by words, area and effect', async () => {
    const owner = await client(everyScopeOf('owner'))
    const find = async (args: Record<string, unknown>) =>
      (
        textJson(await owner.callTool({ name: 'find_operations', arguments: args }))
          .operations as Array<{ operation: string; area: string; effect: string }>
      ).map((o) => o.operation)
    expect((await find({ query: 'attendees' }))[0]).toMatch(/^event_attendees_/)
    expect(await find({ query: 'cancel subscription' })).toContain('subscriptions_cancel')
    const commerceWrites = await find({ area: 'commerce', effect: 'write' })
    expect(commerceWrites).toContain('coupons_create')
    expect(commerceWrites).not.toContain('coupons_list')
  })

  it('runs a write outside the core with a dry run, and a read with the operation’s answer', async () => {
    const owner = await client(everyScopeOf('owner'))
    const made = await owner.callTool({
      name: 'run_write_operation',
      arguments: {
        operation: 'coupons_create',
        arguments: { code: 'DRYRUN10', discount: { type: 'percent', percent_off: 10 } },
        dry_run: true,
      },
    })
    expect(made.isError ?? false, JSON.stringify(made.content)).toBe(false)
    expect(JSON.stringify(made.content)).toMatch(/Dry run: nothing was written/)
    const coupons = textJson(
      await owner.callTool({
        name: 'run_read_operation',
        arguments: { operation: 'coupons_list', arguments: { limit: 5 } },
      }),
    )
    expect(coupons.object).toBe('list')
    expect((coupons.data as Array<{ code: string }>).map((c) => c.code)).not.toContain('DRYRUN10')
  })

  it('describes an operation with an example a model can follow', async () => {
    const owner = await client(everyScopeOf('owner'))
    const described = textJson(
      await owner.callTool({
        name: 'describe_operation',
        arguments: { operation: 'enrollments_create' },
      }),
    )
    expect(described).toMatchObject({
      run_with: 'run_write_operation',
      scope: 'students:write',
      access: 'allowed',
      example: { student_id: 'stu_…', course_id: 'crs_…', dry_run: true },
    })
  })

  it('refuses find_operations arguments its schema does not take', async () => {
    const owner = await client(everyScopeOf('owner'))
    const refused = await owner.callTool({
      name: 'find_operations',
      arguments: { area: 'billing', limit: 0 },
    })
    expect(refused.isError).toBe(true)
    expect(textJson(refused)).toMatchObject({ status: 422, code: 'validation_failed' })
    expect((textJson(refused).errors as Array<{ field: string }>).map((e) => e.field)).toEqual([
      'area',
      'limit',
    ])
  })

  it('refuses the wrong runner and an unknown operation as tool errors', async () => {
    const owner = await client(everyScopeOf('owner'))
    const wrong = await owner.callTool({
      name: 'run_read_operation',
      arguments: { operation: 'coupons_delete', arguments: { id: 'cpn_x' } },
    })
    expect(wrong.isError).toBe(true)
    expect(textJson(wrong)).toMatchObject({ status: 400, code: 'wrong_runner' })
    const unknown = await owner.callTool({
      name: 'describe_operation',
      arguments: { operation: 'coupons_explode' },
    })
    expect(unknown.isError).toBe(true)
    expect(textJson(unknown)).toMatchObject({ status: 404, code: 'unknown_operation' })
  })

  it('steps up a run of an operation whose scope the token lacks, as its own tool does', async () => {
    const { accessToken } = await issueForMcp(server, { role: 'owner', scope: 'courses:read' })
    const reader = await connect(server, accessToken)
    clients.push(reader)
    const found = textJson(
      await reader.callTool({ name: 'find_operations', arguments: { query: 'students' } }),
    )
    expect(found.operations).toContainEqual(
      expect.objectContaining({
        operation: 'students_list',
        scope: 'students:read',
        access: 'needs_scope',
      }),
    )
    const response = await postRpc(
      server,
      {
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: {
          name: 'run_read_operation',
          arguments: { operation: 'students_list', arguments: {} },
        },
      },
      { authorization: `Bearer ${accessToken}` },
    )
    expect(response.status).toBe(403)
    const challenge = parseChallenge(response.headers.get('www-authenticate'))
    expect(challenge.params.error).toBe('insufficient_scope')
    expect(challenge.params.scope?.split(' ')).toEqual(
      expect.arrayContaining(['students:read', 'courses:read']),
    )
  })
})
