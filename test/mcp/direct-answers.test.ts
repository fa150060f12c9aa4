import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ALL_SCOPES } from '../../src/oauth/scopes.js'
import { type Json, readJson } from '../support/http.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { issueForMcp, postRpc } from './support.js'

// tools/list and tools/call of a 2025-era client are answered without the SDK's transport
// (src/mcp/direct-answers.ts). The same request with `_meta: {}` in its params goes through
// the SDK (the direct path leaves `_meta` to it): both answers must be the same, status,
// media type and JSON, but for the request id a problem carries.

let server: TestServer
let token: string
let courseId: string

beforeAll(async () => {
  server = await startTestServer()
  token = (await issueForMcp(server, { role: 'owner', scope: ALL_SCOPES.join(' ') })).accessToken
  const made = await rpc('tools/call', {
    name: 'courses_create',
    arguments: {
      title: 'Both ways',
      pricing_plans: [{ name: 'Free', type: 'free', price: { amount: 0, currency: 'USD' } }],
    },
  })
  courseId = made.body.result.structuredContent.id
})
afterAll(async () => {
  await server?.close()
})

async function rpc(
  method: string,
  params: Record<string, unknown>,
  options: { viaSdk?: boolean; path?: string } = {},
): Promise<{ status: number; type: string | null; body: Json }> {
  const message = {
    jsonrpc: '2.0',
    id: 7,
    method,
    params: options.viaSdk ? { ...params, _meta: {} } : params,
  }
  const response = await postRpc(server, message, { authorization: `Bearer ${token}` })
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    body: await readJson(response),
  }
}

/**
 * The answer with the request id of a problem (each request has its own) left out, and the
 * time a rehearsed write would have stamped (the two requests may fall in different
 * milliseconds), as text and as structured content.
 */
const comparable = (answer: { status: number; type: string | null; body: Json }) =>
  JSON.parse(
    JSON.stringify(answer)
      .replace(/"request_id\\":\\"req_[^\\]+\\"/g, '"request_id\\":\\"req\\"')
      .replace(/(\\?"updated_at\\?":\\?")[^"\\]+/g, '$1(now)'),
  )

const CASES: Array<[string, string, Record<string, unknown>]> = [
  ['the core list', 'tools/list', {}],
  ['a read', 'tools/call', { name: 'courses_list', arguments: { limit: 2, fields: ['title'] } }],
  ['a read of one record', 'tools/call', { name: 'courses_get', arguments: { id: 'COURSE' } }],
  [
    'a write rehearsed',
    'tools/call',
    {
      name: 'courses_update',
      arguments: { id: 'COURSE', title: 'Renamed', dry_run: true },
    },
  ],
  [
    'a refused write (a problem)',
    'tools/call',
    { name: 'courses_update', arguments: { id: 'COURSE', level: 'expert' } },
  ],
  ['the catalogue', 'tools/call', { name: 'find_operations', arguments: { query: 'coupon' } }],
  [
    'a runner',
    'tools/call',
    {
      name: 'run_read_operation',
      arguments: { operation: 'courses_get', arguments: { id: 'COURSE' } },
    },
  ],
  ['no arguments', 'tools/call', { name: 'school_overview' }],
]

describe('2025-era tools/list and tools/call, without and through the SDK', () => {
  it.each(CASES)('%s: the same answer', async (_, method, params) => {
    const filled = JSON.parse(JSON.stringify(params).replaceAll('COURSE', courseId))
    const direct = await rpc(method, filled)
    const sdk = await rpc(method, filled, { viaSdk: true })
    expect(direct.status).toBe(200)
    expect(comparable(direct)).toEqual(comparable(sdk))
  })

  it('leaves an unknown tool, a batch and a malformed request to the SDK’s errors', async () => {
    const unknown = await rpc('tools/call', { name: 'no_such_tool', arguments: {} })
    expect(unknown.body.error.code).toBe(-32602)
    const batch = await postRpc(
      server,
      [{ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }],
      { authorization: `Bearer ${token}` },
    )
    expect(batch.status).toBe(200)
    const extra = await postRpc(
      server,
      { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {}, extra: true },
      { authorization: `Bearer ${token}` },
    )
    // A member JSON-RPC does not have: the SDK's Invalid Request, never an answer.
    expect(await readJson(extra)).toMatchObject({ error: { code: -32600 } })
    const badArgs = await rpc('tools/call', { name: 'courses_list', arguments: 'limit=2' })
    expect(badArgs.body.error.code).toBe(-32602)
  })
})

describe('a lone read names its record in its arguments', () => {
  it('is answered as the REST read, and a U+0000 in the id is refused before anything is read', async () => {
    const read = await rpc('tools/call', { name: 'courses_get', arguments: { id: courseId } })
    expect(read.body.result.structuredContent.id).toBe(courseId)
    const other = await rpc('tools/call', {
      name: 'run_read_operation',
      arguments: { operation: 'courses_get', arguments: { id: 'crs_none' } },
    })
    expect(JSON.parse(other.body.result.content[0].text)).toMatchObject({ status: 404 })
    // A number is read as the id it spells (as REST reads a path), found or not.
    for (const [id, status] of [
      ['crs_a\u0000b', 422],
      [7, 404],
    ] as const) {
      const refused = await rpc('tools/call', { name: 'courses_get', arguments: { id } })
      expect(refused.status).toBe(200)
      expect(refused.body.result.isError).toBe(true)
      expect(JSON.parse(refused.body.result.content[0].text)).toMatchObject({ status })
    }
  })
})
