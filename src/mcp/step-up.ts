import type { TokenCaller } from '../api/caller.js'
import { toolAccess } from './tool-access.js'
import type { SchoolTool } from './tools.js'

/**
 * The scopes the token lacks for the tool calls of a request (one JSON-RPC message or a
 * batch) that the person's role would allow, in catalogue order; empty when none is missing.
 * Unknown tools and refused calls are left to the server, which answers them as errors.
 */
export function missingScopes(
  tools: ReadonlyMap<string, SchoolTool>,
  caller: TokenCaller,
  body: unknown,
): string[] {
  const missing = new Set<string>()
  for (const message of Array.isArray(body) ? body : [body]) {
    if (typeof message !== 'object' || message === null) continue
    const { method, params } = message as { method?: unknown; params?: { name?: unknown } }
    if (method !== 'tools/call' || typeof params?.name !== 'string') continue
    const tool = tools.get(params.name)
    if (!tool) continue
    const access = toolAccess(tool, caller)
    if (access.kind === 'step_up') for (const scope of access.scopes) missing.add(scope)
  }
  return [...missing]
}
