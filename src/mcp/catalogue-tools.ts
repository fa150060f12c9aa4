import type { TokenCaller } from '../api/caller.js'
import type { FieldError } from '../api/conventions.js'
import type { JsonSchema } from '../api/framework/fields.js'
import { AREA_NAMES, OPERATION_AREAS } from '../api/operations.js'
import type { ProblemFields } from '../api/problem.js'
import { toolAccess } from './tool-access.js'
import { type CallAnswer, type ToolResult, toolProblem } from './tool-results.js'
import type { SchoolTool, ToolAnnotations } from './tools.js'

/**
 * The catalogue as four tools (issue 34): every operation of the API is found, described and
 * run through them, including those whose own tools are not listed. A run goes through the
 * operation's own tool (the same validation, scopes ∩ role, step-up challenge, dry run,
 * idempotency, activity record and problem details as that tool and its REST route).
 */
export interface CatalogueTool {
  readonly name: string
  readonly title: string
  readonly description: string
  readonly inputSchema: JsonSchema
  readonly annotations: ToolAnnotations
  run(args: Readonly<Record<string, unknown>>, use: CatalogueUse): Promise<CallAnswer>
}

/** What a catalogue tool works with: every operation's tool, the caller, and a way to call one. */
export interface CatalogueUse {
  readonly tools: ReadonlyMap<string, SchoolTool>
  readonly caller: TokenCaller
  readonly requestId: string
  call(tool: SchoolTool, args: Record<string, unknown>): Promise<CallAnswer>
}

/** The runners, whose calls the step-up check reads through (step-up.ts). */
export const RUN_READ = 'run_read_operation'
export const RUN_WRITE = 'run_write_operation'

const OPERATION_ARGUMENT: JsonSchema = {
  type: 'string',
  minLength: 1,
  maxLength: 64,
  description: 'The operation’s name as find_operations gives it, e.g. courses_list',
}

/** The tool of an operation named by its tool name (`courses_list`) or its own (`courses.list`). */
export function operationTool(
  tools: ReadonlyMap<string, SchoolTool>,
  name: unknown,
): SchoolTool | undefined {
  return typeof name === 'string' ? tools.get(name.replaceAll('.', '_')) : undefined
}

const json = (body: unknown): ToolResult => ({
  content: [{ type: 'text', text: JSON.stringify(body) }],
  structuredContent: body as Record<string, unknown>,
})

function unknownOperation(name: unknown, use: CatalogueUse): ToolResult {
  const said = typeof name === 'string' ? `"${name.slice(0, 64)}"` : 'no operation'
  return toolProblem(
    404,
    {
      code: 'unknown_operation',
      title: 'Not Found',
      detail: `${said} is not an operation of this API: find_operations lists them`,
    },
    use.requestId,
  )
}

/** How the caller stands with an operation: usable now, or after authorizing its scope. */
function accessOf(tool: SchoolTool, caller: TokenCaller): 'allowed' | 'needs_scope' | undefined {
  const access = toolAccess(tool, caller)
  return access.kind === 'allowed'
    ? 'allowed'
    : access.kind === 'step_up'
      ? 'needs_scope'
      : undefined
}

const effectOf = (tool: SchoolTool) => (tool.annotations.readOnlyHint ? 'read' : 'write')

/** Lower-case words of a text, and of each the form without a plural `s`. */
function words(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 1)
    .map((w) => (w.length > 3 && w.endsWith('s') ? w.slice(0, -1) : w))
}

/** An example of a schema's value: what a call of the operation could send. */
function exampleOf(schema: JsonSchema, depth = 0): unknown {
  if (Array.isArray(schema.enum)) return schema.enum.find((v) => v !== null)
  if ('const' in schema) return schema.const
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type
  if (type === 'object' && depth < 3) {
    const properties = (schema.properties ?? {}) as Record<string, JsonSchema>
    const required = new Set((schema.required as string[] | undefined) ?? [])
    return Object.fromEntries(
      Object.entries(properties)
        .filter(([name]) => required.has(name))
        .map(([name, member]) => [name, exampleOf(member, depth + 1)]),
    )
  }
  if (type === 'array')
    return schema.items && depth < 3 ? [exampleOf(schema.items as JsonSchema, depth + 1)] : []
  if (type === 'integer' || type === 'number') return (schema.minimum as number | undefined) ?? 1
  if (type === 'boolean') return false
  if (schema.format === 'date-time') return '2026-01-31T09:00:00Z'
  // An id reference says its prefix in words (portable-schema.ts): `A crs_… id`.
  const id =
    typeof schema.description === 'string' ? /^A ([a-z]+)_… id/.exec(schema.description) : null
  if (id) return `${id[1]}_…`
  return '…'
}

/** An example call of a tool: its required arguments, and a dry run for a write that has one. */
function exampleCall(tool: SchoolTool): Record<string, unknown> {
  const example = exampleOf(tool.arguments.schema) as Record<string, unknown>
  return tool.arguments.dryRun ? { ...example, dry_run: true } : example
}

/** find_operations' arguments that are not what its schema says, as a problem. */
function refusedArguments(args: Readonly<Record<string, unknown>>): ProblemFields | undefined {
  const errors: FieldError[] = []
  if (args.query !== undefined && typeof args.query !== 'string')
    errors.push({ field: 'query', code: 'type', message: 'query must be a string' })
  if (args.area !== undefined && !(AREA_NAMES as readonly unknown[]).includes(args.area))
    errors.push({
      field: 'area',
      code: 'enum',
      message: `area must be one of ${AREA_NAMES.join(', ')}`,
    })
  if (args.effect !== undefined && args.effect !== 'read' && args.effect !== 'write')
    errors.push({ field: 'effect', code: 'enum', message: 'effect must be read or write' })
  if (
    args.limit !== undefined &&
    !(Number.isInteger(args.limit) && Number(args.limit) >= 1 && Number(args.limit) <= 150)
  )
    errors.push({ field: 'limit', code: 'range', message: 'limit must be 1 to 150' })
  if (errors.length === 0) return undefined
  return {
    code: 'validation_failed',
    title: 'Unprocessable Content',
    detail: errors.map((e) => e.message).join('; '),
    errors,
  }
}

const findOperations: CatalogueTool = {
  name: 'find_operations',
  title: 'Find operations of the school’s API',
  description:
    'Finds the operations that can be run with run_read_operation and run_write_operation (every operation of the API, including those with no tool of their own listed): by words, area or effect. Answers each operation’s name, summary, area, effect, the scope it needs, and whether this token may run it now (allowed) or must first be authorized for its scope (needs_scope). Then describe_operation gives its arguments.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      query: {
        type: 'string',
        maxLength: 200,
        description: 'Words to look for in names and summaries, e.g. "refund order" or "attendee"',
      },
      area: { type: 'string', enum: [...AREA_NAMES] },
      effect: { type: 'string', enum: ['read', 'write'] },
      limit: { type: 'integer', minimum: 1, maximum: 150, default: 30 },
    },
  },
  annotations: {
    title: 'Find operations',
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  async run(args, use) {
    const refused = refusedArguments(args)
    if (refused) return toolProblem(422, refused, use.requestId)
    const wanted = typeof args.query === 'string' ? words(args.query.slice(0, 200)) : []
    const limit = typeof args.limit === 'number' ? Math.max(1, Math.min(150, args.limit)) : 30
    const found = [...use.tools.values()].flatMap((tool, order) => {
      const access = accessOf(tool, use.caller)
      if (!access) return []
      if (typeof args.area === 'string' && tool.area !== args.area) return []
      if (typeof args.effect === 'string' && effectOf(tool) !== args.effect) return []
      // A word of the name counts twice a word of the summary or the area.
      const named = new Set(words(tool.name))
      const said = new Set(words(`${tool.title} ${tool.area}`))
      const score = wanted.reduce((n, w) => n + (named.has(w) ? 2 : said.has(w) ? 1 : 0), 0)
      if (wanted.length > 0 && score === 0) return []
      return [{ tool, access, score, order }]
    })
    found.sort((a, b) => b.score - a.score || a.order - b.order)
    return json({
      object: 'operation_list',
      total: found.length,
      operations: found.slice(0, limit).map(({ tool, access }) => ({
        operation: tool.name,
        summary: tool.title,
        area: tool.area,
        effect: effectOf(tool),
        ...(tool.operation.scope !== undefined && { scope: tool.operation.scope }),
        access,
      })),
      ...(wanted.length === 0 && args.area === undefined && { areas: OPERATION_AREAS }),
    })
  },
}

const describeOperation: CatalogueTool = {
  name: 'describe_operation',
  title: 'Describe an operation of the school’s API',
  description:
    'One operation as find_operations names it: what it does, its REST route, the scope (and roles) it needs, the JSON Schema of its arguments (what run_read_operation or run_write_operation takes as arguments), and an example.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['operation'],
    properties: { operation: OPERATION_ARGUMENT },
  },
  annotations: {
    title: 'Describe an operation',
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  async run(args, use) {
    const tool = operationTool(use.tools, args.operation)
    const access = tool && accessOf(tool, use.caller)
    if (!tool || !access) return unknownOperation(args.operation, use)
    return json({
      object: 'operation',
      operation: tool.name,
      summary: tool.title,
      description: tool.description,
      area: tool.area,
      effect: effectOf(tool),
      run_with: tool.annotations.readOnlyHint ? RUN_READ : RUN_WRITE,
      rest: `${tool.operation.method} ${tool.operation.path}`,
      ...(tool.operation.scope !== undefined && { scope: tool.operation.scope }),
      ...(tool.operation.roles && { roles: tool.operation.roles }),
      access,
      arguments: tool.arguments.schema,
      example: exampleCall(tool),
    })
  },
}

/** A runner: the operation's own tool called with the arguments given, if its effect fits. */
function runner(effect: 'read' | 'write'): CatalogueTool {
  const write = effect === 'write'
  return {
    name: write ? RUN_WRITE : RUN_READ,
    title: write ? 'Run an operation that changes the school' : 'Run an operation that reads',
    description: write
      ? 'Runs one write operation (create, change, delete, publish …) as find_operations names it, with its arguments as describe_operation shows them: the same checks, permissions, dry run and idempotency as the operation’s own tool. Put dry_run: true to see what would change without changing it.'
      : 'Runs one read operation as find_operations names it, with its arguments as describe_operation shows them: the same answer as the operation’s own tool.',
    inputSchema: {
      type: 'object',
      additionalProperties: false,
      required: ['operation'],
      properties: {
        operation: OPERATION_ARGUMENT,
        arguments: {
          type: 'object',
          description: 'The operation’s arguments (describe_operation)',
        },
        ...(write && {
          dry_run: {
            type: 'boolean',
            description: 'true: check and show what would change, writing nothing',
          },
          idempotency_key: {
            type: 'string',
            minLength: 1,
            maxLength: 255,
            description: 'Any unique string: a repeat with the same key replays the first answer',
          },
        }),
      },
    },
    annotations: {
      title: write ? 'Run a write operation' : 'Run a read operation',
      readOnlyHint: !write,
      destructiveHint: write,
      idempotentHint: !write,
      openWorldHint: false,
    },
    async run(args, use) {
      const tool = operationTool(use.tools, args.operation)
      // A tool the role may not use is run all the same: it answers forbidden_role, and the
      // refusal of a write is counted, as when its own tool is called.
      if (!tool) return unknownOperation(args.operation, use)
      if (effectOf(tool) !== effect)
        return toolProblem(
          400,
          {
            code: 'wrong_runner',
            title: 'Bad Request',
            detail: `${tool.name} ${write ? 'only reads: run it with run_read_operation' : 'changes the school: run it with run_write_operation'}`,
          },
          use.requestId,
        )
      const given = args.arguments ?? {}
      if (typeof given !== 'object' || given === null || Array.isArray(given))
        return toolProblem(
          422,
          {
            code: 'validation_failed',
            title: 'Unprocessable Content',
            detail: 'arguments must be an object of the operation’s arguments',
          },
          use.requestId,
        )
      return use.call(tool, {
        ...(given as Record<string, unknown>),
        ...(args.dry_run !== undefined && { dry_run: args.dry_run }),
        ...(args.idempotency_key !== undefined && { idempotency_key: args.idempotency_key }),
      })
    },
  }
}

/** The catalogue tools, in the order they are listed. */
export const CATALOGUE_TOOLS: readonly CatalogueTool[] = [
  findOperations,
  describeOperation,
  runner('read'),
  runner('write'),
]
