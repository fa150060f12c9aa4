import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from '@modelcontextprotocol/client'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { UserTable } from '../../src/storage/tables/oauth.js'
import type { TestServer } from '../support/server.js'
import { type Issued, issue } from '../support/token-lifecycle.js'

/** Tokens issued for the MCP endpoint (`resource=<issuer>/mcp`). */
export function issueForMcp(
  server: TestServer,
  options: { role?: UserTable['role']; scope?: string } = {},
): Promise<Issued> {
  return issue(server, { ...options, resource: `${server.issuer}/mcp` })
}

/**
 * The official SDK client, connected to /mcp with a bearer token (or none); `path` asks for
 * another surface (`/mcp?toolsets=all` lists every operation's tool).
 */
export async function connect(server: TestServer, token?: string, path = '/mcp'): Promise<Client> {
  const client = new Client({ name: 'portico-test', version: '1.0.0' })
  const transport = new StreamableHTTPClientTransport(new URL(`${server.issuer}${path}`), {
    requestInit: token ? { headers: { authorization: `Bearer ${token}` } } : {},
  })
  await client.connect(transport)
  return client
}

/** A JSON-RPC request POSTed as an MCP client would, for checking HTTP-level answers. */
export function postRpc(
  server: TestServer,
  message: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return server.fetch('/mcp', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
      ...headers,
    },
    body: typeof message === 'string' ? message : JSON.stringify(message),
  })
}

/** The first text block of a tool result, parsed as JSON. */
export function textJson(result: object): Record<string, unknown> {
  const [first] = ((result as { content?: unknown }).content ?? []) as Array<{
    type: string
    text?: string
  }>
  return JSON.parse(first?.text ?? 'null') as Record<string, unknown>
}

/** The revision of the MCP specification that needs no handshake. */
export const MODERN = '2026-07-28'

/** The SDK's v2 client, connected to /mcp at MCP 2026-07-28 (it probes with server/discover). */
export async function connectModern(
  server: TestServer,
  token: string,
  path = '/mcp',
): Promise<ModernClient> {
  const client = new ModernClient(
    { name: 'portico-test', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: MODERN } } },
  )
  await client.connect(
    new ModernTransport(new URL(`${server.issuer}${path}`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  )
  return client
}

/**
 * A 2026-07-28 request POSTed by hand: the `_meta` envelope and the standard headers a
 * client sends (Mcp-Name for the calls that name something), each overridable.
 */
export function postModern(
  server: TestServer,
  method: string,
  params: Record<string, unknown>,
  options: { id?: number; headers?: Record<string, string>; meta?: Record<string, unknown> } = {},
): Promise<Response> {
  const name = params.name ?? params.uri
  return server.fetch('/mcp', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': method,
      ...(typeof name === 'string' && { 'mcp-name': name }),
      ...options.headers,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: options.id ?? 1,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': MODERN,
          'io.modelcontextprotocol/clientCapabilities': {},
          ...options.meta,
        },
      },
    }),
  })
}
