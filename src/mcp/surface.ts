import type { TokenCaller } from '../api/caller.js'
import { AREA_NAMES, type OperationArea } from '../api/operations.js'
import type { CatalogueTool } from './catalogue-tools.js'
import { roleMayUse } from './tool-access.js'
import type { SchoolTool } from './tools.js'

/**
 * What `/mcp` lists (issue 34): a small core by default, whole areas of per-operation tools on
 * request, and never what the caller could not use. Every operation stays reachable through
 * the catalogue tools (catalogue-tools.ts), and any operation's own tool stays callable,
 * listed or not.
 */
export interface Surface {
  /** The areas whose per-operation tools are listed beside the core (`?toolsets=`). */
  readonly toolsets: ReadonlySet<OperationArea>
  /** No write tool is listed (`?read_only=true`, or a token holding no write scope). */
  readonly readOnly: boolean
}

/**
 * The per-operation tools of the core: what owners ask agents most (courses and their
 * curriculum, students, enrollments and progress, recent orders, the analytics overview, the
 * most frequent writes). Together with the catalogue tools they stay within 20 tools and
 * 8,000 tokens of what a model reads (test/mcp/tool-surface.test.ts).
 */
export const CORE_OPERATIONS: ReadonlySet<string> = new Set([
  'school.overview',
  'search.records',
  'courses.list',
  'courses.get',
  'curriculum.get',
  'courses.create',
  'courses.update',
  'students.list',
  'students.get',
  'students.create',
  'enrollments.list',
  'enrollments.create',
  'enrollments.progress',
  'orders.list',
  'analytics.overview',
])

/** A query parameter as Fastify hands it (a repeated one as a list). */
type QueryValue = string | readonly string[] | undefined

const values = (value: QueryValue): string[] =>
  (Array.isArray(value) ? value : value === undefined ? [] : [value])
    .flatMap((v: string) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v.length > 0)

/** The surface of a request that asks for none: the core, writes listed. */
const DEFAULT_SURFACE: Surface = { toolsets: new Set(), readOnly: false }

/** The surface a request asks for, or why it cannot be had (an unknown toolset …). */
export function surfaceOf(
  query: Readonly<Record<string, QueryValue>>,
): Surface | { readonly refused: string } {
  if (query.toolsets === undefined && query.read_only === undefined) return DEFAULT_SURFACE
  const toolsets = new Set<OperationArea>()
  for (const name of values(query.toolsets)) {
    if (name === 'all') for (const area of AREA_NAMES) toolsets.add(area)
    else if ((AREA_NAMES as readonly string[]).includes(name)) toolsets.add(name as OperationArea)
    else
      return {
        refused: `unknown toolset "${name.slice(0, 64)}": the toolsets are ${AREA_NAMES.join(', ')} and all`,
      }
  }
  const readOnly = values(query.read_only)
  if (readOnly.some((v) => v !== 'true' && v !== 'false'))
    return { refused: 'read_only is true or false' }
  return { toolsets, readOnly: readOnly.includes('true') }
}

/** Whether a token holds the scope of a tool (a public read needs none). */
const holds = (tool: SchoolTool, caller: TokenCaller) =>
  tool.operation.scope === undefined ||
  tool.operation.public === true ||
  caller.scopes.has(tool.operation.scope)

/** A token holding no write scope lists no write tool, as `read_only` asks. */
const writes = (caller: TokenCaller) => [...caller.scopes].some((s) => s.endsWith(':write'))

/**
 * The tools listed to a caller, in a stable order (the catalogue tools, then the operations'
 * in the catalogue's order): the core and the requested toolsets, each only if the token's
 * scopes and the person's role allow it, and no write tool on a read-only surface.
 */
export function listedTools(
  catalogue: readonly CatalogueTool[],
  operations: readonly SchoolTool[],
  caller: TokenCaller,
  surface: Surface,
): Array<CatalogueTool | SchoolTool> {
  const readOnly = surface.readOnly || !writes(caller)
  const usable = (tool: SchoolTool) =>
    (!readOnly || tool.annotations.readOnlyHint) &&
    roleMayUse(tool, caller.user.role) &&
    holds(tool, caller)
  return [
    ...catalogue.filter((tool) => !readOnly || tool.annotations.readOnlyHint),
    ...operations.filter(
      (tool) =>
        (CORE_OPERATIONS.has(tool.operation.name) || surface.toolsets.has(tool.area)) &&
        usable(tool),
    ),
  ]
}
