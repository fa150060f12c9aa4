import { describe, expect, it } from 'vitest'
import { toolNameOf } from '../../src/api/framework/operation.js'
import { API_OPERATION_SPECS } from '../../src/api/operations.js'
import { RESOURCES } from '../../src/api/registry.js'
import { ROLES, roleAllows } from '../../src/oauth/roles.js'
import { ALL_SCOPES } from '../../src/oauth/scopes.js'
import { useDemoServer } from '../support/demo.js'
import { readJson } from '../support/http.js'
import { issue } from '../support/token-lifecycle.js'
import { connect, issueForMcp, textJson } from './support.js'

// The two bindings of the same operations cannot drift: for one token of each role, every
// read tool answers what its REST operation answers (same status family, same data).

const server = useDemoServer()

/** `course_id` → 'courses': the collection whose records a path parameter names. */
const COLLECTION_OF = new Map(RESOURCES.map((r) => [`${r.object}_id`, r.collection]))

/** The operation of each operation's own tool (the catalogue's tools have none). */
const OPERATION_OF = new Map(API_OPERATION_SPECS.map((o) => [toolNameOf(o), o]))

/** The REST path of a tool's GET operation, e.g. '/api/v1/courses/:id'. */
function restPathOf(tool: { name: string }): string {
  const operation = OPERATION_OF.get(tool.name)
  if (operation?.method !== 'GET') throw new Error(`${tool.name} names no REST read`)
  return operation.path
}

describe('MCP tools and REST operations agree, role by role', () => {
  it.each(ROLES)('every read tool the %s role lists', async (role) => {
    const scope = ALL_SCOPES.filter((s) => roleAllows(role, s)).join(' ')
    const mcp = await issueForMcp(server(), { role, scope })
    // The same person through the REST API, so that their own account reads the same.
    const rest = await issue(server(), { person: mcp.person, scope })
    const owner = await issue(server(), { role: 'owner', scope: ALL_SCOPES.join(' ') })
    const get = (path: string, token: string) =>
      server().fetch(path, { headers: { authorization: `Bearer ${token}` } })
    /** The first record of a collection, as the owner sees it: an id to read. */
    const firstIds = new Map<string, string>()
    async function firstId(collection: string): Promise<string> {
      if (!firstIds.has(collection)) {
        const list = await readJson(await get(`/api/v1/${collection}?limit=1`, owner.accessToken))
        firstIds.set(collection, list?.data?.[0]?.id ?? 'none')
      }
      return firstIds.get(collection) ?? 'none'
    }

    const client = await connect(server(), mcp.accessToken, '/mcp?toolsets=all')
    const { tools } = await client.listTools()
    // Every operation's own read tool (the catalogue's tools have no REST route of their own).
    const reads = tools.filter((t) => t.annotations?.readOnlyHint && OPERATION_OF.has(t.name))
    expect(reads.length).toBeGreaterThan(0)
    let compared = 0
    for (const tool of reads) {
      const rest = restPathOf(tool)
      const collection = rest.split('/')[3] ?? ''
      const args: Record<string, string> = {}
      let path = rest
      for (const [, name] of rest.matchAll(/:(\w+)/g)) {
        const value = await firstId(
          name === 'id' ? collection : (COLLECTION_OF.get(name ?? '') ?? ''),
        )
        args[name ?? ''] = value
        path = path.replace(`:${name}`, encodeURIComponent(value))
      }
      const [result, viaCatalogue, response] = await Promise.all([
        client.callTool({ name: tool.name, arguments: args }),
        client.callTool({
          name: 'run_read_operation',
          arguments: { operation: tool.name, arguments: args },
        }),
        get(path, restToken()),
      ])
      // The catalogue's runner answers what the operation's own tool answers (a problem with
      // its own request id).
      const answer = (r: typeof result) =>
        r.isError ? { ...textJson(r), request_id: 'req' } : (r.structuredContent ?? textJson(r))
      expect({ tool: tool.name, error: viaCatalogue.isError, via: answer(viaCatalogue) }).toEqual({
        tool: tool.name,
        error: result.isError,
        via: answer(result),
      })
      const body = await readJson(response)
      const family = Math.floor(response.status / 100)
      if (family === 2) {
        expect({ tool: tool.name, error: result.isError ?? false }).toEqual({
          tool: tool.name,
          error: false,
        })
        // The index names the calling client: the MCP token's and the REST token's differ.
        const data = (result.structuredContent ?? textJson(result)) as Record<string, unknown>
        if (tool.name === 'school_overview') {
          expect(data.caller).toMatchObject({ client_id: mcp.client.clientId })
          data.caller = { ...(data.caller as object), client_id: body.caller.client_id }
        }
        expect({ tool: tool.name, data }).toEqual({ tool: tool.name, data: body })
      } else {
        expect({ tool: tool.name, error: result.isError }).toEqual({ tool: tool.name, error: true })
        const problem = textJson(result)
        expect({ tool: tool.name, status: problem.status, code: problem.code }).toEqual({
          tool: tool.name,
          status: response.status,
          code: body.code,
        })
      }
      compared += 1
    }
    expect(compared).toBe(reads.length)
    await client.close()

    function restToken(): string {
      return rest.accessToken
    }
  })
})

/** The JSON Schema of a tool's `fields` argument, when it takes one. */
function fieldsOf(tool: { inputSchema: { properties?: Record<string, object> } }) {
  return tool.inputSchema.properties?.fields as { type: string } | undefined
}

/** The members a tool's `fields` may name, as its REST operation documents them. */
function selectableOf(tool: { name: string }): string[] {
  const parts = OPERATION_OF.get(tool.name)?.inputSchema.properties as
    | { query?: { properties?: { fields?: { items?: { enum?: string[] } } } } }
    | undefined
  const query = parts?.query
  return query?.properties?.fields?.items?.enum ?? []
}

describe('MCP tools and REST operations project records alike (fields)', () => {
  it('answers the same members to a full reader, and to one who sees only the public projection', async () => {
    const owner = await issueForMcp(server(), { role: 'owner', scope: ALL_SCOPES.join(' ') })
    const restOwner = await issue(server(), { person: owner.person, scope: ALL_SCOPES.join(' ') })
    // A token without any read scope sees what the anonymous REST caller sees.
    const outsider = await issueForMcp(server(), { role: 'owner', scope: 'account:read' })
    const get = (path: string, token?: string) =>
      server().fetch(path, token ? { headers: { authorization: `Bearer ${token}` } } : {})
    const full = await connect(server(), owner.accessToken, '/mcp?toolsets=all')
    const publicOnly = await connect(server(), outsider.accessToken)
    const { tools } = await full.listTools()
    const lists = tools.filter((t) => fieldsOf(t) && t.name.endsWith('_list'))
    expect(lists.length).toBeGreaterThan(10)
    let hiddenChecked = 0
    for (const tool of lists) {
      const schema = fieldsOf(tool)
      expect({ tool: tool.name, type: schema?.type }).toEqual({ tool: tool.name, type: 'array' })
      const name = selectableOf(tool).find((n) => n !== 'id' && n !== 'object') ?? 'created_at'
      const rest = restPathOf(tool)
      const collection = rest.split('/')[3] ?? ''
      // A list under a record (an event's attendees): under the first one.
      const args: Record<string, string> = {}
      let path = rest
      if (rest.includes(':id')) {
        const first = await readJson(
          await get(`/api/v1/${collection}?limit=1`, restOwner.accessToken),
        )
        args.id = first.data[0].id
        path = rest.replace(':id', args.id ?? '')
      }
      const [result, response] = await Promise.all([
        full.callTool({
          name: tool.name,
          arguments: { ...args, fields: [name, 'created_at'], limit: 3 },
        }),
        get(`${path}?fields=${name},created_at&limit=3`, restOwner.accessToken),
      ])
      expect(response.status).toBe(200)
      const body = await readJson(response)
      expect({ tool: tool.name, data: result.structuredContent }).toEqual({
        tool: tool.name,
        data: body,
      })
      for (const item of body.data)
        expect(Object.keys(item).sort()).toEqual(['created_at', 'id', name, 'object'].sort())
      const resource = RESOURCES.find((r) => `/api/v1/${r.collection}` === rest)
      if (!resource?.public) continue
      // Hidden fields are not selectable without the read scope: the same 400 both ways.
      const hidden = Object.keys(resource.fields).find((f) => !resource.fields[f]?.options.public)
      const shown = Object.keys(resource.fields).find((f) => resource.fields[f]?.options.public)
      for (const [field, status] of [
        [hidden, 400],
        [shown, 200],
      ] as const) {
        if (!field) continue
        const [asTool, asRest] = await Promise.all([
          publicOnly.callTool({ name: tool.name, arguments: { fields: [field] } }),
          get(`${path}?fields=${field}`),
        ])
        expect({ tool: tool.name, field, status: asRest.status }).toEqual({
          tool: tool.name,
          field,
          status,
        })
        const restBody = await readJson(asRest)
        if (status === 200) {
          expect(asRest.headers.get('data-visibility')).toBe('public')
          expect({ tool: tool.name, data: asTool.structuredContent }).toEqual({
            tool: tool.name,
            data: restBody,
          })
        } else {
          hiddenChecked += 1
          expect(asTool.isError).toBe(true)
          const problem = textJson(asTool)
          expect({ ...problem, request_id: 0, instance: 0 }).toEqual({
            ...restBody,
            request_id: 0,
            instance: 0,
          })
          expect(problem.errors).toEqual([expect.objectContaining({ code: 'not_public' })])
        }
      }
    }
    expect(hiddenChecked).toBeGreaterThan(0)
    await Promise.all([full.close(), publicOnly.close()])
  })
})
