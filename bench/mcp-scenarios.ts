import { expectStatus, formField, HttpClient, locationOf } from './http.js'
import type { RequestLoad } from './load-protocol.js'
import {
  createPkce,
  type Person,
  type Prepared,
  porticoSignIn,
  REDIRECT_URI,
  SCOPES,
} from './prepare.js'
import type { Scenario, ScenarioContext } from './scenarios.js'

/**
 * Portico's MCP endpoint beside its REST twins (issue 34): a `tools/call` of `courses_get`
 * against the REST read of the same course, and the default surface's `tools/list` against
 * the REST page of 20 courses. Stateless MCP 2025-06-18 (no `initialize`: every request makes
 * its server afresh), with tokens issued for `<issuer>/mcp` through the real flow (the
 * endpoint takes no other audience). Before a load is handed out, one request is sent and
 * its answer checked in full; every answer under load must then carry the same result.
 */

const PROTOCOL_VERSION = '2025-06-18'

/** What an MCP client sends with every request of that revision. */
const mcpHeaders = (token: string): Record<string, string> => ({
  authorization: `Bearer ${token}`,
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': PROTOCOL_VERSION,
})

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** Tokens for `<issuer>/mcp`, made once per server and scope request. */
const tokens = new Map<string, Promise<string>>()

function mcpToken(prepared: Prepared, person: Person, scope: 'the API scenarios' | 'all') {
  const key = `${prepared.origin} ${scope}`
  let token = tokens.get(key)
  if (!token) {
    token = issueMcpToken(prepared, person, scope)
    // A failure is not kept: the next round asks again.
    token.catch(() => tokens.delete(key))
    tokens.set(key, token)
  }
  return token
}

/**
 * A token issued for `<issuer>/mcp` (RFC 8707 `resource`, in the authorization request and
 * again at the code exchange), through a fresh sign-in and the consent page, as an agent
 * gets one. `all`: every scope the discovery document lists; the consent page grants what
 * the person's role allows of them.
 */
async function issueMcpToken(
  prepared: Prepared,
  person: Person,
  scope: 'the API scenarios' | 'all',
): Promise<string> {
  const { origin, clientId, paths } = prepared
  const resource = `${origin}/mcp`
  const http = new HttpClient(origin, 1)
  try {
    let scopes = SCOPES.portico
    if (scope === 'all') {
      const discovery = expectStatus(await http.request('GET', paths.discovery), 200, 'discovery')
      const listed = (JSON.parse(discovery.body) as { scopes_supported?: string[] })
        .scopes_supported
      if (!listed?.length) throw new Error('the discovery document lists no scopes_supported')
      scopes = listed.join(' ')
    }
    const browser = await porticoSignIn(http, person)
    const pkce = createPkce()
    const authorize = `${paths.authorize}?${new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
      scope: scopes,
      state: 'mcp',
      code_challenge: pkce.challenge,
      code_challenge_method: 'S256',
      resource,
    })}`
    let reply = await http.request('GET', authorize, { headers: browser.headers() })
    // A consent page to approve, unless a remembered consent answered at once.
    if (reply.status === 200)
      reply = await http.form(
        '/oauth/authorize/decision',
        {
          request: formField(reply.body, 'request') ?? '',
          csrf: formField(reply.body, 'csrf') ?? '',
          decision: 'approve',
        },
        browser.headers(),
      )
    const location = locationOf(expectStatus(reply, 303, 'MCP authorization'), origin)
    const code = location.searchParams.get('code')
    if (!code) throw new Error(`MCP authorization: no code in ${location.href}`)
    const exchanged = await http.form(paths.token, {
      grant_type: 'authorization_code',
      code,
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
      code_verifier: pkce.verifier,
      resource,
    })
    const body = JSON.parse(expectStatus(exchanged, 200, 'MCP code exchange').body) as {
      access_token?: string
      scope?: string
    }
    if (!body.access_token) throw new Error(`MCP code exchange: no access token: ${exchanged.body}`)
    console.log(
      `MCP token for ${resource} (${scope === 'all' ? 'every scope the role allows' : 'the API scenarios’ scopes'}): ${body.scope ?? '(no scope said)'}`,
    )
    return body.access_token
  } finally {
    http.close()
  }
}

/** The JSON-RPC result of one request, checked as a 2025-06-18 client reads it. */
async function rpcResult(
  context: ScenarioContext,
  load: RequestLoad,
  what: string,
): Promise<{ result: Record<string, unknown>; raw: string }> {
  const http = new HttpClient(context.origin, 1)
  try {
    const reply = expectStatus(
      await http.request(load.method, load.path, {
        headers: load.headers,
        ...(load.body !== undefined && { body: load.body }),
      }),
      load.expect,
      what,
    )
    if (!String(reply.headers['content-type']).startsWith('application/json'))
      throw new Error(`${what}: answered ${reply.headers['content-type']}, not JSON`)
    const message = JSON.parse(reply.body) as { jsonrpc?: unknown; id?: unknown; result?: unknown }
    if (message.jsonrpc !== '2.0' || message.id !== 1 || !isRecord(message.result))
      throw new Error(`${what}: not a JSON-RPC result: ${reply.body.slice(0, 300)}`)
    return { result: message.result, raw: reply.body }
  } finally {
    http.close()
  }
}

/** The REST answer of the same course, with the REST scenarios' token. */
async function restCourse(prepared: Prepared, id: string): Promise<unknown> {
  const http = new HttpClient(prepared.origin, 1)
  try {
    const reply = await http.request('GET', `/api/v1/courses/${id}`, {
      headers: { authorization: `Bearer ${prepared.accessToken}` },
    })
    return JSON.parse(expectStatus(reply, 200, 'REST course').body) as unknown
  } finally {
    http.close()
  }
}

/** A stateless JSON-RPC request to /mcp with a token for it. */
function rpcLoad(token: string, method: string, params: Record<string, unknown>): RequestLoad {
  return {
    kind: 'request',
    method: 'POST',
    path: '/mcp',
    headers: mcpHeaders(token),
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    expect: 200,
  }
}

function oauth(context: ScenarioContext): Prepared {
  if (!context.prepared) throw new Error(`${context.server} is not an OAuth server`)
  return context.prepared
}

export const MCP_COURSE: Scenario = {
  id: 'mcp-course',
  title: 'MCP: tools/call courses_get (one course, stateless 2025-06-18)',
  servers: ['portico'],
  target: { versusPortico: { scenario: 'course', most: 1.3 } },
  note: 'the course the course scenario reads, with a token for <issuer>/mcp; the target: Portico’s CPU per operation over its own in the course scenario, median of the rounds’ ratios',
  async load(context) {
    const prepared = oauth(context)
    const id = prepared.courseIds[0] ?? ''
    const load = rpcLoad(
      await mcpToken(prepared, context.person, 'the API scenarios'),
      'tools/call',
      {
        name: 'courses_get',
        arguments: { id },
      },
    )
    const { result, raw } = await rpcResult(context, load, 'MCP courses_get')
    const { content, structuredContent, isError } = result
    const [first] = Array.isArray(content) ? (content as unknown[]) : []
    const text = isRecord(first) && first.type === 'text' ? first.text : undefined
    const course = JSON.stringify(await restCourse(prepared, id))
    if (
      isError === true ||
      typeof text !== 'string' ||
      JSON.stringify(JSON.parse(text)) !== course ||
      JSON.stringify(structuredContent) !== course
    )
      throw new Error(`MCP courses_get: not a successful tool result with the course: ${raw}`)
    // Every answer under load: the structured course, up to its id (an error has none).
    const member = `"id":"${id}"`
    const structured = `"structuredContent":${course}`
    const end = structured.indexOf(member)
    if (end < 0 || !raw.includes(structured))
      throw new Error(`MCP courses_get: the course is not in the answer as expected: ${raw}`)
    return { ...load, bodyIncludes: structured.slice(0, end + member.length) }
  },
}

export const MCP_TOOLS_LIST: Scenario = {
  id: 'mcp-tools-list',
  title: 'MCP: tools/list of the default surface (every scope the role allows)',
  servers: ['portico'],
  target: { versusPortico: { scenario: 'courses', most: 1 } },
  note: 'the bench person’s token for <issuer>/mcp holding every scope their role allows; the target: Portico’s CPU per operation at most its own in the courses scenario (a page of 20), median of the rounds’ ratios',
  async load(context) {
    const prepared = oauth(context)
    const load = rpcLoad(await mcpToken(prepared, context.person, 'all'), 'tools/list', {})
    const { result, raw } = await rpcResult(context, load, 'MCP tools/list')
    const tools = Array.isArray(result.tools) ? (result.tools as unknown[]) : []
    const names = tools.map((tool) => (isRecord(tool) ? tool.name : undefined))
    const last = names[names.length - 1]
    if (
      !names.includes('courses_get') ||
      !names.includes('courses_list') ||
      typeof last !== 'string' ||
      names.some((name) => typeof name !== 'string')
    )
      throw new Error(`MCP tools/list: not the core surface: ${raw.slice(0, 300)}`)
    if (!toolsListed.has(context.origin)) {
      toolsListed.add(context.origin)
      console.log(`MCP tools/list: ${names.length} tools, ${raw.length} characters`)
    }
    // Every answer under load: the list, down to its last tool.
    return { ...load, bodyIncludes: `"name":"${last}"` }
  },
}

/** Servers whose list was described once already. */
const toolsListed = new Set<string>()
