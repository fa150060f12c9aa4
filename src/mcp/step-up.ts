import type { TokenCaller } from '../api/caller.js'
import { operationTool, RUN_READ, RUN_WRITE } from './catalogue-tools.js'
import { toolAccess } from './tool-access.js'
import type { SchoolTool } from './tools.js'

/** A tool call of a request that needs scopes the token lacks (and the role allows). */
export interface StepUp {
  readonly tool: SchoolTool
  readonly scopes: readonly string[]
}

/**
 * The tool calls of a request (one JSON-RPC message or a batch; a runner's call by the
 * operation it names) that need scopes the token lacks and the person's role would allow, in
 * the order sent. Unknown tools and calls the role refuses are left to the server, which
 * answers them as errors.
 */
export function stepUps(
  tools: ReadonlyMap<string, SchoolTool>,
  caller: TokenCaller,
  body: unknown,
): StepUp[] {
  const found: StepUp[] = []
  for (const message of Array.isArray(body) ? body : [body]) {
    if (typeof message !== 'object' || message === null) continue
    const { method, params } = message as {
      method?: unknown
      params?: { name?: unknown; arguments?: { operation?: unknown } }
    }
    if (method !== 'tools/call' || typeof params?.name !== 'string') continue
    // A runner's call is the call of the operation it names (catalogue-tools.ts).
    const tool =
      params.name === RUN_READ || params.name === RUN_WRITE
        ? operationTool(tools, params.arguments?.operation)
        : tools.get(params.name)
    if (!tool) continue
    const access = toolAccess(tool, caller)
    if (access.kind === 'step_up') found.push({ tool, scopes: access.scopes })
  }
  return found
}
