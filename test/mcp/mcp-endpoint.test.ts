import { request as httpRequest } from 'node:http'
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { tinyPng } from '../support/files.js'
import { readJson } from '../support/http.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { issue, issueThroughConsent } from '../support/token-lifecycle.js'
import { parseChallenge } from '../support/www-authenticate.js'
import { connect, issueForMcp, postRpc, textJson } from './support.js'

/** A small upload cap, so that the file beyond it is small too. */
const UPLOAD_MAX = 64 * 1024

let server: TestServer
beforeAll(async () => {
  server = await startTestServer({ env: { PORTICO_UPLOAD_MAX_BYTES: String(UPLOAD_MAX) } })
})
afterAll(async () => {
  await server?.close()
})

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'raw', version: '1' },
  },
}
const course = (title: string) => ({
  title,
  pricing_plans: [{ name: 'Free', type: 'free', price: { amount: 0, currency: 'USD' } }],
})

describe('/mcp: authorization', () => {
  it('challenges a request without a token: 401 naming the MCP resource metadata and scopes', async () => {
    const response = await postRpc(server, INIT)
    expect(response.status).toBe(401)
    const challenge = parseChallenge(response.headers.get('www-authenticate'))
    expect(challenge.scheme).toBe('Bearer')
    expect(challenge.params.error).toBeUndefined()
    expect(challenge.params.resource_metadata).toBe(
      `${server.issuer}/.well-known/oauth-protected-resource/mcp`,
    )
    expect(challenge.params.scope?.split(' ')).toEqual(
      expect.arrayContaining(['courses:read', 'students:read']),
    )
    const metadata = await readJson(await server.fetch('/.well-known/oauth-protected-resource/mcp'))
    expect(metadata.resource).toBe(`${server.issuer}/mcp`)
    expect(metadata.authorization_servers).toEqual([server.issuer])
  })

  it('refuses a token issued for another resource (the REST API) with 401 invalid_token', async () => {
    const { accessToken } = await issue(server, { scope: 'courses:read' })
    const response = await postRpc(server, INIT, { authorization: `Bearer ${accessToken}` })
    expect(response.status).toBe(401)
    const challenge = parseChallenge(response.headers.get('www-authenticate'))
    expect(challenge.params.error).toBe('invalid_token')
    expect(challenge.params.resource_metadata).toBe(
      `${server.issuer}/.well-known/oauth-protected-resource/mcp`,
    )
    // And the other way round: a token for /mcp is not one for the REST API.
    const mcp = await issueForMcp(server, { scope: 'courses:read' })
    const rest = await server.fetch('/api/v1/courses', {
      headers: { authorization: `Bearer ${mcp.accessToken}` },
    })
    expect(rest.status).toBe(401)
  })

  it('accepts resource=<issuer>/mcp/ (trailing slash) through consent as <issuer>/mcp', async () => {
    const issued = await issueThroughConsent(server, {
      scope: 'courses:read',
      resource: `${server.issuer}/mcp/`,
    })
    const client = await connect(server, issued.accessToken)
    expect((await client.listTools()).tools.length).toBeGreaterThan(0)
    await client.close()
  })

  it('answers GET and DELETE with 405 (stateless), and refuses a malformed Origin', async () => {
    for (const method of ['GET', 'DELETE']) {
      const response = await server.fetch('/mcp', {
        method,
        headers: { accept: 'text/event-stream' },
      })
      expect(response.status).toBe(405)
      expect(response.headers.get('allow')).toBe('POST')
      expect((await readJson(response)).jsonrpc).toBe('2.0')
    }
    const { accessToken } = await issueForMcp(server)
    const auth = { authorization: `Bearer ${accessToken}` }
    const malformedOrigin = await postRpc(server, INIT, { ...auth, origin: 'https://a.example/x' })
    expect(malformedOrigin.status).toBe(403)
    const ownOrigin = await postRpc(server, INIT, { ...auth, origin: server.issuer })
    expect(ownOrigin.status).toBe(200)
    const parse = await postRpc(server, '{"jsonrpc":', auth)
    expect(parse.status).toBe(400)
    expect((await readJson(parse)).error.code).toBe(-32700)
  })
})

/** A POST to /mcp with a Host header of our choosing (fetch would send the URL's). */
function postWithHost(host: string, token: string): Promise<number> {
  const url = new URL(`${server.issuer}/mcp`)
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        hostname: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: {
          host,
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
      },
      (response) => {
        response.resume()
        resolve(response.statusCode ?? 0)
      },
    )
    request.once('error', reject)
    request.end(JSON.stringify(INIT))
  })
}

describe('/mcp: browsers and DNS rebinding', () => {
  it('refuses a Host that is not the issuer’s (DNS rebinding), whatever the port', async () => {
    const { accessToken } = await issueForMcp(server)
    expect(await postWithHost('evil.example.com', accessToken)).toBe(403)
    expect(await postWithHost(`evil.example.com:${new URL(server.issuer).port}`, accessToken)).toBe(
      403,
    )
    expect(await postWithHost(new URL(server.issuer).host, accessToken)).toBe(200)
  })

  it('serves browser-based clients of any origin (CORS): preflight, MCP headers, the challenge', async () => {
    const origin = 'https://agent.example'
    const preflight = await server.fetch('/mcp', {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type, mcp-protocol-version',
      },
    })
    expect(preflight.status).toBe(204)
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*')
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST')
    const allowed = (preflight.headers.get('access-control-allow-headers') ?? '').toLowerCase()
    for (const name of ['authorization', 'content-type', 'mcp-protocol-version', 'mcp-session-id'])
      expect(allowed).toContain(name)
    // The 401 challenge is readable across origins, so the client can start OAuth.
    const challenge = await postRpc(server, INIT, { origin })
    expect(challenge.status).toBe(401)
    expect(challenge.headers.get('access-control-allow-origin')).toBe('*')
    const exposed = (challenge.headers.get('access-control-expose-headers') ?? '').toLowerCase()
    for (const name of ['www-authenticate', 'mcp-session-id', 'mcp-protocol-version'])
      expect(exposed).toContain(name)
    const { accessToken } = await issueForMcp(server)
    const answered = await postRpc(server, INIT, { origin, authorization: `Bearer ${accessToken}` })
    expect(answered.status).toBe(200)
    expect(answered.headers.get('access-control-allow-origin')).toBe('*')
    expect((await readJson(answered)).result.protocolVersion).toBe('2025-06-18')
  })
})

describe('/mcp: tools', () => {
  it('initializes and lists the core tools the token and the role allow, with schemas and annotations', async () => {
    const { accessToken } = await issueForMcp(server, { role: 'editor', scope: 'courses:read' })
    const client = await connect(server, accessToken)
    expect(client.getServerVersion()?.name).toBe('portico')
    const { tools } = await client.listTools()
    const byName = new Map(tools.map((t) => [t.name, t]))
    // The catalogue reaches every operation; a token holding no write scope lists no write tool
    // (an editor could write courses, but this token cannot), nor what it holds no scope for.
    expect([...byName.keys()]).toEqual(
      expect.arrayContaining(['find_operations', 'describe_operation', 'run_read_operation']),
    )
    expect(byName.has('run_write_operation')).toBe(false)
    expect(byName.has('courses_update')).toBe(false)
    expect(byName.has('students_list')).toBe(false)
    expect(byName.has('members_list')).toBe(false)
    const list = byName.get('courses_list')
    // A read's annotations: no destructive or idempotent hint, which mean nothing on a read.
    expect(list?.annotations).toEqual({ readOnlyHint: true, openWorldHint: false })
    expect(list?.inputSchema).toMatchObject({ type: 'object', additionalProperties: false })
    expect(Object.keys(list?.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(['limit', 'cursor', 'sort', 'status', 'published_at_gte']),
    )
    expect(list?.outputSchema?.type).toBe('object')
    expect(list?.description).toMatch(/courses:read/)
    // What every tool shares is said once, in the server's instructions, not in each tool.
    expect(list?.description).not.toMatch(/never instructions/)
    expect(client.getInstructions()).toMatch(/never instructions to follow/)
    expect(client.getInstructions()).toMatch(/cursor set to next_cursor/)
    // With the write scope, the core's course writes are listed, and the write runner.
    const writer = await issueForMcp(server, {
      role: 'editor',
      scope: 'courses:read courses:write',
    })
    const writing = await connect(server, writer.accessToken)
    const written = new Map((await writing.listTools()).tools.map((t) => [t.name, t]))
    await writing.close()
    expect(written.has('run_write_operation')).toBe(true)
    const update = written.get('courses_update')
    // A write is neither read-only nor safe unless it says otherwise (the hints' defaults).
    expect(update?.annotations).toEqual({ idempotentHint: true, openWorldHint: false })
    expect(update?.inputSchema.required).toEqual(['id'])
    expect(Object.keys(update?.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(['id', 'title', 'dry_run']),
    )
    const create = written.get('courses_create')
    expect(Object.keys(create?.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(['title', 'pricing_plans', 'dry_run', 'idempotency_key']),
    )
    const resources = await client.listResources()
    expect(resources.resources.map((r) => r.uri)).toEqual([
      'portico://school/data-model',
      'portico://school/scopes',
    ])
    const model = await client.readResource({ uri: 'portico://school/data-model' })
    const text = (model.contents[0] as { text: string }).text
    expect(
      JSON.parse(text).resources.some((r: { collection: string }) => r.collection === 'courses'),
    ).toBe(true)
    await client.close()
  })

  it('reads, writes with dry_run, then for real', async () => {
    const { accessToken } = await issueForMcp(server, {
      role: 'editor',
      scope: 'courses:read courses:write',
    })
    const client = await connect(server, accessToken)
    const dry = await client.callTool({
      name: 'courses_create',
      arguments: { ...course('Over MCP'), dry_run: true },
    })
    expect(dry.isError).toBeFalsy()
    expect(dry.structuredContent).toMatchObject({ object: 'course', title: 'Over MCP' })
    const count = async () =>
      (
        (await client.callTool({ name: 'courses_list', arguments: { limit: 1, q: 'Over MCP' } }))
          .structuredContent as { data: unknown[] }
      ).data.length
    expect(await count()).toBe(0)
    const real = await client.callTool({
      name: 'courses_create',
      arguments: { ...course('Over MCP'), idempotency_key: 'mcp-1' },
    })
    expect(real.isError).toBeFalsy()
    const id = (real.structuredContent as { id: string }).id
    expect(await count()).toBe(1)
    const got = await client.callTool({ name: 'courses_get', arguments: { id } })
    expect(got.structuredContent).toMatchObject({ id, title: 'Over MCP' })
    // Same answer as the REST API gives for the same record.
    const rest = await readJson(
      await server.fetch(`/api/v1/courses/${id}`, {
        headers: {
          authorization: `Bearer ${(await issue(server, { scope: 'courses:read' })).accessToken}`,
        },
      }),
    )
    expect(got.structuredContent).toEqual(rest)
    await client.close()
  })

  it('answers validation failures and not-found as tool errors with the problem details', async () => {
    const { accessToken } = await issueForMcp(server, {
      role: 'owner',
      scope: 'courses:read courses:write',
    })
    const client = await connect(server, accessToken)
    const invalid = await client.callTool({
      name: 'courses_create',
      arguments: { title: 'Bad level', level: 'expert', pricing_plans: [] },
    })
    expect(invalid.isError).toBe(true)
    const problem = textJson(invalid)
    expect(problem).toMatchObject({ status: 422, code: 'validation_failed' })
    expect((problem.errors as Array<{ field: string }>).map((e) => e.field)).toContain('level')
    expect(problem).not.toHaveProperty('stack')
    const unknown = await client.callTool({ name: 'courses_list', arguments: { colour: 'red' } })
    expect(unknown.isError).toBe(true)
    expect(textJson(unknown)).toMatchObject({ status: 422, errors: [{ field: 'colour' }] })
    const missing = await client.callTool({ name: 'courses_get', arguments: { id: 'crs_none' } })
    expect(missing.isError).toBe(true)
    expect(textJson(missing)).toMatchObject({ status: 404 })
    await client.close()
  })

  it('steps up with 403 insufficient_scope when the role allows the scope the token lacks', async () => {
    const { accessToken } = await issueForMcp(server, { role: 'editor', scope: 'courses:read' })
    const call = {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'courses_create', arguments: course('Needs write') },
    }
    const response = await postRpc(server, call, { authorization: `Bearer ${accessToken}` })
    expect(response.status).toBe(403)
    const challenge = parseChallenge(response.headers.get('www-authenticate'))
    expect(challenge.params.error).toBe('insufficient_scope')
    expect(challenge.params.scope?.split(' ')).toEqual(
      expect.arrayContaining(['courses:write', 'courses:read']),
    )
    expect(challenge.params.resource_metadata).toBe(
      `${server.issuer}/.well-known/oauth-protected-resource/mcp`,
    )
    // The SDK client sees the same 403 (it has no OAuth provider to re-authorize with).
    const client = await connect(server, accessToken)
    const error = await client
      .callTool({ name: 'courses_create', arguments: course('Needs write') })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(StreamableHTTPError)
    expect((error as StreamableHTTPError).code).toBe(403)
    await client.close()
  })

  it('answers a call the role forbids, whatever the scopes, as a tool error', async () => {
    const { accessToken } = await issueForMcp(server, { role: 'lecturer', scope: 'courses:read' })
    const client = await connect(server, accessToken)
    const refused = await client.callTool({
      name: 'courses_create',
      arguments: course('Not mine to make'),
    })
    expect(refused.isError).toBe(true)
    expect(textJson(refused)).toMatchObject({ status: 403, code: 'forbidden_role' })
    await client.close()
  })
})

describe('/mcp: files and limits', () => {
  const STORAGE = 'storage:write'
  const rest = (token: string, bytes: Buffer, type: string, query = 'purpose=course_cover') =>
    server.fetch(`/api/v1/storage/files?${query}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': type },
      body: bytes,
    })

  it('uploads a file sent in base64, with the REST upload’s type and size rules', async () => {
    const { accessToken } = await issueForMcp(server, { role: 'owner', scope: STORAGE })
    const restToken = (await issue(server, { role: 'owner', scope: STORAGE })).accessToken
    // Uploads are in the admin toolset, not in the core surface.
    const client = await connect(server, accessToken, '/mcp?toolsets=admin')
    const tool = (await client.listTools()).tools.find((t) => t.name === 'storage_upload')
    expect(tool?.inputSchema.required).toEqual(
      expect.arrayContaining(['content_base64', 'media_type']),
    )
    expect(tool?.annotations).toEqual({ destructiveHint: false, openWorldHint: false })
    expect(Object.keys(tool?.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(['purpose', 'visibility', 'filename', 'idempotency_key']),
    )
    const png = tinyPng(4, 4, [200, 10, 10])
    const upload = (args: Record<string, unknown>) =>
      client.callTool({ name: 'storage_upload', arguments: args })
    const stored = await upload({
      content_base64: png.toString('base64'),
      media_type: 'image/png',
      purpose: 'course_cover',
      filename: 'red.png',
    })
    expect(stored.isError).toBeFalsy()
    const file = stored.structuredContent as { url: string; size: number; filename: string }
    expect(file).toMatchObject({ size: png.length, filename: 'red.png' })
    const served = await fetch(file.url)
    expect(Buffer.from(await served.arrayBuffer()).equals(png)).toBe(true)

    // Each refusal is the REST API's, problem for problem.
    const tooLarge = Buffer.alloc(UPLOAD_MAX + 1)
    const cases: Array<[string, Record<string, unknown>, Response | undefined]> = [
      [
        'larger than the cap (decoded)',
        { content_base64: tooLarge.toString('base64'), media_type: 'image/png' },
        await rest(restToken, tooLarge, 'image/png'),
      ],
      [
        'not the declared type',
        { content_base64: Buffer.from('plain text').toString('base64'), media_type: 'image/png' },
        await rest(restToken, Buffer.from('plain text'), 'image/png'),
      ],
      [
        'a type the purpose refuses',
        { content_base64: png.toString('base64'), media_type: 'application/zip' },
        await rest(restToken, png, 'application/zip'),
      ],
    ]
    for (const [what, args, response] of cases) {
      const result = await upload({ purpose: 'course_cover', ...args })
      const problem = textJson(result)
      const expected = await readJson(response as Response)
      expect({ what, error: result.isError, status: problem.status, code: problem.code }).toEqual({
        what,
        error: true,
        status: response?.status,
        code: expected.code,
      })
    }
    const over = textJson(
      await upload({
        content_base64: tooLarge.toString('base64'),
        media_type: 'image/png',
        purpose: 'course_cover',
      }),
    )
    expect(over).toMatchObject({ status: 413, code: 'payload_too_large' })
    expect(over.detail).toContain(`this one has ${UPLOAD_MAX + 1}`)
    // Base64 that is not: a validation failure naming the argument, nothing stored (its
    // characters are read once everything else, its size included, is allowed, as REST's).
    for (const content of ['not base64!', 'abc', 'AB=C', '====', 42]) {
      const bad = await upload({
        content_base64: content,
        media_type: 'image/png',
        purpose: 'course_cover',
      })
      expect(bad.isError).toBe(true)
      expect(textJson(bad)).toMatchObject({
        status: 422,
        code: 'validation_failed',
        errors: [{ field: 'content_base64', code: 'invalid_base64' }],
      })
    }
    const missing = textJson(await upload({ purpose: 'course_cover' }))
    expect((missing.errors as Array<{ field: string }>).map((e) => e.field).sort()).toEqual([
      'content_base64',
      'media_type',
    ])
    await client.close()
  })

  it('holds a JSON body to the API’s limit, though /mcp admits a file’s base64', async () => {
    const { accessToken } = await issueForMcp(server, {
      role: 'owner',
      scope: 'courses:read courses:write',
    })
    const client = await connect(server, accessToken)
    const huge = await client.callTool({
      name: 'courses_create',
      arguments: { ...course('Huge'), description: `<p>${'x'.repeat(70 * 1024)}</p>` },
    })
    expect(huge.isError).toBe(true)
    expect(textJson(huge)).toMatchObject({ status: 413, code: 'payload_too_large' })
    await client.close()
  })

  it('counts tool calls against the per-address limits REST calls count against', async () => {
    const now = Date.now()
    await server.deps.database.db
      .insertInto('forms')
      .values({
        id: 'frm_mcp_limit',
        title: 'Limits',
        type: 'contact',
        status: 'active',
        fields: JSON.stringify([
          { key: 'email', label: 'E-mail', type: 'email', required: true, options: [] },
        ]),
        linked_to: null,
        success_message: null,
        created_at: now,
        updated_at: now,
      })
      .execute()
    // The limit is 10 a minute per address: all of them spent over REST, from this address.
    for (let i = 0; i < 10; i += 1) {
      const response = await server.fetch('/api/v1/forms/frm_mcp_limit/submissions', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ answers: { email: `p${i}@example.com` } }),
      })
      expect(response.status).toBe(201)
    }
    const { accessToken } = await issueForMcp(server, { role: 'owner', scope: 'forms:read' })
    const client = await connect(server, accessToken)
    const result = await client.callTool({
      name: 'form_submissions_submit',
      arguments: { form_id: 'frm_mcp_limit', answers: { email: 'agent@example.com' } },
    })
    expect(result.isError).toBe(true)
    expect(textJson(result)).toMatchObject({ status: 429, code: 'rate_limited' })
    await client.close()
  })
})
