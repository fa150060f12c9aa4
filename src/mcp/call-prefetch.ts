import type { Row } from '../api/framework/fields.js'
import type { ApiOperation } from '../api/framework/operation.js'
import type { Companion } from '../oauth/bearer.js'
import { RUN_READ } from './catalogue-tools.js'
import type { SchoolTool } from './tools.js'

/**
 * The row a lone tools/call's operation reads first (the record a read names), read together
 * with the check of the caller's token in one statement, as the REST binding reads it: one
 * round trip instead of two on PostgreSQL. The operation uses the row only after its own
 * checks of the caller, as it would its own read (ApiOperation.prefetch).
 */
export interface CallPrefetch {
  readonly operation: ApiOperation
  readonly params: Readonly<Record<string, string>>
  /** Handed to the token check, which fills in `found`. */
  readonly companion: Companion<Row>
}

/** The largest body read before the caller is known: a lone read is a few hundred bytes. */
export const PREFETCH_BODY_LIMIT = 4096

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * What a JSON-RPC request's operation reads first, when the request is one tools/call (of the
 * operation's own tool, or of run_read_operation naming it) whose operation prefetches and
 * whose arguments give its path parameters; undefined for anything else.
 */
export function callPrefetch(
  tools: ReadonlyMap<string, SchoolTool>,
  request: unknown,
): CallPrefetch | undefined {
  if (!isRecord(request) || request.method !== 'tools/call' || !isRecord(request.params)) return
  let { name, arguments: args } = request.params
  if (name === RUN_READ && isRecord(args)) ({ operation: name, arguments: args } = args)
  if (typeof name !== 'string' || (args !== undefined && !isRecord(args))) return
  const tool = tools.get(name)
  const prefetch = tool?.operation.prefetch
  if (!tool || !prefetch) return
  // The path parameters as the call will give them (toolInput): strings, none holding U+0000
  // (which PostgreSQL cannot compare with); anything else is the call's to refuse.
  const params: Record<string, string> = {}
  for (const [name, target] of tool.arguments.targets) {
    if (target.part !== 'params' || target.member === undefined) continue
    const value = args?.[name]
    if (typeof value !== 'string' || value.includes('\0')) return
    params[target.member] = value
  }
  return { operation: tool.operation, params, companion: { read: () => prefetch(params) } }
}

/** The prefetched row for a call of `operation` with `params`, when it is the one read. */
export function prefetchedFor(
  prefetched: CallPrefetch | undefined,
  operation: ApiOperation,
  params: Readonly<Record<string, string>>,
): Row | null | undefined {
  if (prefetched?.operation !== operation || prefetched.companion.found === undefined) return
  const names = Object.keys(params)
  if (names.length !== Object.keys(prefetched.params).length) return
  if (names.some((name) => prefetched.params[name] !== params[name])) return
  return prefetched.companion.found
}
