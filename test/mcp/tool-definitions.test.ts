import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ALL_SCOPES } from '../../src/oauth/scopes.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { connect, issueForMcp } from './support.js'

// Tool definitions every client accepts (issue 34): names OpenAI, Anthropic and Gemini take,
// input schemas claude.ai keeps (it drops a tool whose schema exceeds 16 KiB; the bound here
// is 8 KiB), no combinator at the top of an input schema, and no string format but
// `date-time` (Gemini refuses the others; the rest is said in words). Measured on every tool
// an owner holding every scope is listed with `?toolsets=all`.

let server: TestServer
let client: Client
let tools: Awaited<ReturnType<Client['listTools']>>['tools']

beforeAll(async () => {
  server = await startTestServer()
  const { accessToken } = await issueForMcp(server, { role: 'owner', scope: ALL_SCOPES.join(' ') })
  client = await connect(server, accessToken, '/mcp?toolsets=all')
  tools = (await client.listTools()).tools
})
afterAll(async () => {
  await client?.close()
  await server?.close()
})

/** Every `format` in a schema, with where it is (a member named `format` is no format). */
function formatsIn(schema: unknown, at: string, out: string[] = []): string[] {
  if (Array.isArray(schema)) for (const [i, s] of schema.entries()) formatsIn(s, `${at}[${i}]`, out)
  else if (schema && typeof schema === 'object')
    for (const [key, value] of Object.entries(schema)) {
      if (key === 'format' && typeof value === 'string') out.push(`${at}: ${value}`)
      else if (key === 'properties' && value && typeof value === 'object')
        for (const [name, member] of Object.entries(value)) formatsIn(member, `${at}.${name}`, out)
      else formatsIn(value, `${at}.${key}`, out)
    }
  return out
}

/** What a model reads of a tool: its name, title, description, input schema, annotations. */
const read = (tool: (typeof tools)[number]) =>
  JSON.stringify({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema,
    annotations: tool.annotations,
  })

describe('tool definitions', () => {
  it('are listed for an owner holding every scope', () => {
    expect(tools.length).toBeGreaterThan(100)
  })

  it('have names every client accepts', () => {
    expect(tools.map((t) => t.name).filter((n) => !/^[a-zA-Z0-9_-]{1,64}$/.test(n))).toEqual([])
  })

  it('each have a description (the conformance suite, and clients older than titles, need one)', () => {
    expect(tools.filter((t) => !t.description?.trim()).map((t) => t.name)).toEqual([])
  })

  it('have input schemas of at most 8 KiB, with no combinator or reference at the top', () => {
    const refused = tools.flatMap((t) => {
      const size = Buffer.byteLength(JSON.stringify(t.inputSchema))
      const top = ['oneOf', 'anyOf', 'allOf', '$ref'].filter((k) => k in t.inputSchema)
      return size > 8192 || top.length > 0 ? [`${t.name}: ${size} bytes ${top.join(' ')}`] : []
    })
    expect(refused).toEqual([])
  })

  it('use no string format but date-time, and say the others in words', () => {
    expect(
      tools.flatMap((t) =>
        formatsIn(t.inputSchema, t.name).filter((f) => !f.endsWith(': date-time')),
      ),
    ).toEqual([])
    const update = tools.find((t) => t.name === 'school_update')
    const properties = (update?.inputSchema.properties ?? {}) as Record<
      string,
      { description?: string }
    >
    const email = properties.contact_email
    expect(email?.description).toMatch(/e-mail address/i)
  })

  it('each fit in 1,200 tokens of what a model reads (o200k), but the page writes', () => {
    const over = tools
      .map((t) => [t.name, countTokens(read(t))] as const)
      .filter(([, tokens]) => tokens > 1200)
    console.info(
      `tools over 1,200 tokens: ${JSON.stringify(over)}; all: ${countTokens(JSON.stringify(tools.map(read)))}`,
    )
    // Page writes carry every block type's props (school/page-blocks.ts): the catalogue of
    // operations (issue 34) is where they go next.
    expect(over.filter(([name]) => !['pages_create', 'pages_update'].includes(name))).toEqual([])
  })
})
