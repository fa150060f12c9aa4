import { describe, expect, it } from 'vitest'
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

    const client = await connect(server(), mcp.accessToken)
    const { tools } = await client.listTools()
    const reads = tools.filter((t) => t.annotations?.readOnlyHint)
    expect(reads.length).toBeGreaterThan(0)
    let compared = 0
    for (const tool of reads) {
      const rest = /REST equivalent: GET (\S+)\./.exec(tool.description ?? '')?.[1]
      if (!rest) throw new Error(`${tool.name} names no REST operation`)
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
      const [result, response] = await Promise.all([
        client.callTool({ name: tool.name, arguments: args }),
        get(path, restToken()),
      ])
      const body = await readJson(response)
      const family = Math.floor(response.status / 100)
      if (family === 2) {
        expect({ tool: tool.name, error: result.isError ?? false }).toEqual({
          tool: tool.name,
          error: false,
        })
        expect({ tool: tool.name, data: result.structuredContent ?? textJson(result) }).toEqual({
          tool: tool.name,
          data: body,
        })
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
