import { countTokens } from 'gpt-tokenizer/encoding/o200k_base'
import { describe, expect, it } from 'vitest'
import { ALL_SCOPES } from '../../src/oauth/scopes.js'
import { useDemoServer } from '../support/demo.js'
import { connect, issueForMcp } from './support.js'

// Results stay under 25,000 tokens by default (issue 34): every list an owner's agent can call
// without arguments, on the demo school (the largest data the tests have), answers one page
// that a model can read whole. Counted on the tool result's text (o200k).

const server = useDemoServer()
const BUDGET = 25_000

describe('tool results by default', () => {
  it('every argument-free list of the demo school fits in 25,000 tokens', async () => {
    const { accessToken } = await issueForMcp(server(), {
      role: 'owner',
      scope: ALL_SCOPES.join(' '),
    })
    const client = await connect(server(), accessToken, '/mcp?toolsets=all')
    const lists = (await client.listTools()).tools.filter(
      (t) => t.annotations?.readOnlyHint && !(t.inputSchema.required ?? []).length,
    )
    expect(lists.length).toBeGreaterThan(20)
    const sizes = new Map<string, number>()
    for (const tool of lists) {
      const result = await client.callTool({ name: tool.name, arguments: {} })
      const text = (result.content as Array<{ text?: string }>).map((c) => c.text ?? '').join('')
      sizes.set(tool.name, countTokens(text))
    }
    const largest = [...sizes.entries()].sort((a, b) => b[1] - a[1]).slice(0, 5)
    console.info(`largest default results: ${JSON.stringify(largest)}`)
    expect([...sizes.entries()].filter(([, tokens]) => tokens > BUDGET)).toEqual([])
    await client.close()
  })
})
