import { request as httpRequest } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { tinyPng } from '../support/files.js'
import { readJson } from '../support/http.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { parseChallenge } from '../support/www-authenticate.js'
import { connect, connectModern, issueForMcp, MODERN, postModern, postRpc } from './support.js'

/**
 * /mcp at MCP 2026-07-28 (no handshake: a `_meta` envelope on every request, standard
 * headers), next to the 2025 revisions on the same URL.
 */
let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(async () => {
  await server?.close()
})

const course = (title: string) => ({
  title,
  pricing_plans: [{ name: 'Free', type: 'free', price: { amount: 0, currency: 'USD' } }],
})
const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

describe('/mcp at 2026-07-28: discovery and lists', () => {
  it('answers server/discover with the versions, capabilities and its identity in _meta', async () => {
    const { accessToken } = await issueForMcp(server, { role: 'editor', scope: 'courses:read' })
    const response = await postModern(
      server,
      'server/discover',
      {},
      { id: 7, headers: bearer(accessToken) },
    )
    expect(response.status).toBe(200)
    const body = await readJson(response)
    expect(body.id).toBe(7)
    expect(body.result).toMatchObject({
      resultType: 'complete',
      supportedVersions: expect.arrayContaining([MODERN]),
      capabilities: { tools: {}, resources: {} },
      cacheScope: 'public',
      ttlMs: expect.any(Number),
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'portico' } },
    })
    expect(body.result).not.toHaveProperty('serverInfo')
    // The SDK's v2 client, pinned to the revision, connects and sees the same server.
    const client = await connectModern(server, accessToken)
    expect(client.getNegotiatedProtocolVersion()).toBe(MODERN)
    expect(client.getServerVersion()?.name).toBe('portico')
    await client.close()
  })

  it('lists tools with private cache hints (the list depends on the caller), in a stable order', async () => {
    const editor = await issueForMcp(server, {
      role: 'editor',
      scope: 'courses:read courses:write',
    })
    const student = await issueForMcp(server, { role: 'student', scope: 'courses:read' })
    const names = async (token: string) => {
      const body = await readJson(
        await postModern(server, 'tools/list', {}, { headers: bearer(token) }),
      )
      expect(body.result).toMatchObject({
        resultType: 'complete',
        cacheScope: 'private',
        ttlMs: expect.any(Number),
      })
      return (body.result.tools as Array<{ name: string }>).map((t) => t.name)
    }
    const first = await names(editor.accessToken)
    expect(first).toContain('courses_update')
    expect(await names(editor.accessToken)).toEqual(first)
    // Another caller, another list: private is the truth.
    expect(await names(student.accessToken)).not.toEqual(first)
    const resources = await readJson(
      await postModern(server, 'resources/list', {}, { headers: bearer(editor.accessToken) }),
    )
    expect(resources.result).toMatchObject({ resultType: 'complete', cacheScope: 'public' })
    expect(resources.result.resources.map((r: { uri: string }) => r.uri)).toEqual([
      'portico://school/data-model',
      'portico://school/scopes',
    ])
  })
})

describe('/mcp at 2026-07-28: tools do what they do in 2025', () => {
  it('projects a read with fields', async () => {
    const { accessToken } = await issueForMcp(server, {
      role: 'owner',
      scope: 'courses:read courses:write',
    })
    const client = await connectModern(server, accessToken)
    await client.callTool({ name: 'courses_create', arguments: course('Projected') })
    const listed = await client.callTool({
      name: 'courses_list',
      arguments: { fields: ['title'], q: 'Projected' },
    })
    expect(listed.isError).toBeFalsy()
    const { data } = listed.structuredContent as { data: Array<Record<string, unknown>> }
    expect(data).toEqual([{ id: expect.any(String), object: 'course', title: 'Projected' }])
    await client.close()
  })

  it('steps up with 403 insufficient_scope when the role allows the scope the token lacks', async () => {
    const { accessToken } = await issueForMcp(server, { role: 'editor', scope: 'courses:read' })
    const response = await postModern(
      server,
      'tools/call',
      { name: 'courses_create', arguments: course('Needs write') },
      { headers: bearer(accessToken) },
    )
    expect(response.status).toBe(403)
    const challenge = parseChallenge(response.headers.get('www-authenticate'))
    expect(challenge.params.error).toBe('insufficient_scope')
    expect(challenge.params.scope?.split(' ')).toEqual(
      expect.arrayContaining(['courses:write', 'courses:read']),
    )
  })

  it('writes with dry_run, then for real, and uploads a file', async () => {
    const { accessToken } = await issueForMcp(server, {
      role: 'owner',
      scope: 'courses:read courses:write storage:write',
    })
    const client = await connectModern(server, accessToken)
    const count = async () =>
      (
        (await client.callTool({ name: 'courses_list', arguments: { q: 'Modern era' } }))
          .structuredContent as { data: unknown[] }
      ).data.length
    const dry = await client.callTool({
      name: 'courses_create',
      arguments: { ...course('Modern era'), dry_run: true },
    })
    expect(dry.structuredContent).toMatchObject({ object: 'course', title: 'Modern era' })
    expect(await count()).toBe(0)
    const real = await client.callTool({
      name: 'courses_create',
      arguments: { ...course('Modern era'), idempotency_key: 'modern-1' },
    })
    expect(real.isError).toBeFalsy()
    expect(await count()).toBe(1)
    const png = tinyPng(3, 3, [10, 200, 10])
    const stored = await client.callTool({
      name: 'storage_upload',
      arguments: {
        content_base64: png.toString('base64'),
        media_type: 'image/png',
        purpose: 'course_cover',
      },
    })
    expect(stored.isError).toBeFalsy()
    const file = stored.structuredContent as { url: string; size: number }
    expect(file.size).toBe(png.length)
    expect(Buffer.from(await (await fetch(file.url)).arrayBuffer()).equals(png)).toBe(true)
    await client.close()
  })
})

describe('/mcp at 2026-07-28: the errors the revision specifies', () => {
  let token: string
  beforeAll(async () => {
    token = (await issueForMcp(server, { role: 'owner', scope: 'courses:read' })).accessToken
  })

  it('refuses an unsupported version with -32022, listing the supported and echoing the requested', async () => {
    const response = await postModern(
      server,
      'tools/list',
      {},
      {
        id: 11,
        headers: { ...bearer(token), 'mcp-protocol-version': '2099-01-01' },
        meta: { 'io.modelcontextprotocol/protocolVersion': '2099-01-01' },
      },
    )
    expect(response.status).toBe(400)
    const body = await readJson(response)
    expect(body.id).toBe(11)
    expect(body.error.code).toBe(-32022)
    expect(body.error.data.supported).toContain(MODERN)
    expect(body.error.data.requested).toBe('2099-01-01')
  })

  it('refuses headers that disagree with the body with -32020', async () => {
    const cases: Array<[string, Record<string, string>]> = [
      ['Mcp-Method', { 'mcp-method': 'resources/list' }],
      ['Mcp-Name', { 'mcp-name': 'courses_get' }],
      ['no Mcp-Method', { 'mcp-method': '' }],
    ]
    for (const [what, headers] of cases) {
      const response = await postModern(
        server,
        'tools/call',
        { name: 'courses_list', arguments: {} },
        { id: 12, headers: { ...bearer(token), ...headers } },
      )
      const body = await readJson(response)
      expect({ what, status: response.status, code: body.error?.code, id: body.id }).toEqual({
        what,
        status: 400,
        code: -32020,
        id: 12,
      })
    }
  })

  it('answers unknown and removed methods 404 with -32601 and the request’s id', async () => {
    for (const method of ['unknown/method', 'initialize', 'ping', 'logging/setLevel']) {
      const response = await postModern(server, method, {}, { id: 13, headers: bearer(token) })
      const body = await readJson(response)
      expect({ method, status: response.status, code: body.error?.code, id: body.id }).toEqual({
        method,
        status: 404,
        code: -32601,
        id: 13,
      })
    }
  })

  it('answers a request mixing the eras with the specified error, never a 500', async () => {
    // A 2026-07-28 header on a 2025 handshake.
    const handshake = await postRpc(
      server,
      {
        jsonrpc: '2.0',
        id: 14,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'x', version: '1' },
        },
      },
      { ...bearer(token), 'mcp-protocol-version': MODERN },
    )
    expect(handshake.status).toBe(400)
    expect(await readJson(handshake)).toMatchObject({ id: 14, error: { code: -32020 } })
    // A 2025 header on a 2026-07-28 envelope.
    const envelope = await postModern(
      server,
      'tools/list',
      {},
      { id: 15, headers: { ...bearer(token), 'mcp-protocol-version': '2025-11-25' } },
    )
    expect(envelope.status).toBe(400)
    const body = await readJson(envelope)
    expect(body).toMatchObject({ id: 15, error: { code: -32020 } })
  })

  it('answers a missing _meta field with -32602 and 400', async () => {
    const response = await server.fetch('/mcp', {
      method: 'POST',
      headers: {
        ...bearer(token),
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': MODERN,
        'mcp-method': 'tools/list',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 16,
        method: 'tools/list',
        params: { _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN } },
      }),
    })
    expect(response.status).toBe(400)
    expect(await readJson(response)).toMatchObject({ id: 16, error: { code: -32602 } })
  })

  it('answers an unknown resource with -32602 naming the URI, in both eras', async () => {
    const uri = 'portico://school/nothing'
    const modern = await readJson(
      await postModern(server, 'resources/read', { uri }, { id: 17, headers: bearer(token) }),
    )
    expect(modern).toMatchObject({ id: 17, error: { code: -32602, data: { uri } } })
    const client = await connect(server, token)
    const error = await client.readResource({ uri }).catch((e: unknown) => e)
    expect(error).toMatchObject({ code: -32602, data: { uri } })
    await client.close()
    const read = await readJson(
      await postModern(
        server,
        'resources/read',
        { uri: 'portico://school/scopes' },
        { headers: bearer(token) },
      ),
    )
    expect(read.result).toMatchObject({ resultType: 'complete', cacheScope: 'public' })
  })

  it('repeats at most a short part of an unknown tool name or resource URI sent', async () => {
    const long = `portico://school/${'x'.repeat(10_000)}`
    const tool = await postModern(
      server,
      'tools/call',
      { name: long, arguments: {} },
      { id: 18, headers: bearer(token) },
    )
    const toolText = await tool.text()
    expect(toolText.length).toBeLessThan(2_000)
    expect(JSON.parse(toolText)).toMatchObject({ id: 18, error: { code: -32602 } })
    const resource = await postModern(
      server,
      'resources/read',
      { uri: long },
      { id: 19, headers: bearer(token) },
    )
    const resourceText = await resource.text()
    expect(resourceText.length).toBeLessThan(2_000)
    expect(JSON.parse(resourceText)).toMatchObject({ id: 19, error: { code: -32602 } })
  })
})

/** A 2026-07-28 POST to /mcp with a Host header of our choosing (fetch would send the URL's). */
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
          'mcp-protocol-version': MODERN,
          'mcp-method': 'server/discover',
        },
      },
      (response) => {
        response.resume()
        resolve(response.statusCode ?? 0)
      },
    )
    request.once('error', reject)
    const meta = {
      'io.modelcontextprotocol/protocolVersion': MODERN,
      'io.modelcontextprotocol/clientCapabilities': {},
    }
    request.end(
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: meta } }),
    )
  })
}

describe('/mcp at 2026-07-28: DNS rebinding', () => {
  it('refuses a Host that is not the issuer’s and a malformed Origin, as in 2025', async () => {
    const { accessToken } = await issueForMcp(server)
    expect(await postWithHost('evil.example.com', accessToken)).toBe(403)
    expect(await postWithHost(new URL(server.issuer).host, accessToken)).toBe(200)
    const origin = await postModern(
      server,
      'server/discover',
      {},
      { headers: { ...bearer(accessToken), origin: 'https://a.example/x' } },
    )
    expect(origin.status).toBe(403)
  })
})
