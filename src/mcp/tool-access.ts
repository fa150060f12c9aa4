import type { TokenCaller } from '../api/caller.js'
import type { ProblemFields } from '../api/problem.js'
import { roleAllows } from '../oauth/roles.js'
import type { SchoolTool } from './tools.js'

/** Whether a person with `role` could ever use a tool, whatever their token holds. */
export function roleMayUse(tool: SchoolTool, role: TokenCaller['user']['role']): boolean {
  const { scope, roles, public: isPublic } = tool.operation
  if (roles && !roles.includes(role)) return false
  return scope === undefined || isPublic === true || roleAllows(role, scope)
}

/** What stands between a caller and a tool call. */
export type ToolAccess =
  | { readonly kind: 'allowed' }
  /** The token lacks scopes the person's role allows: ask for them (HTTP 403 challenge). */
  | { readonly kind: 'step_up'; readonly scopes: readonly string[] }
  /** The person's role forbids it, whatever the token: a tool error. */
  | { readonly kind: 'refused'; readonly problem: ProblemFields }

const ALLOWED: ToolAccess = { kind: 'allowed' }

/**
 * Decides before a call whether the token suffices. A public read needs no scope (without
 * one it answers what the public sees); anything else needs its scope, granted to the token
 * and allowed for the role.
 */
export function toolAccess(tool: SchoolTool, caller: TokenCaller): ToolAccess {
  const { scope, public: isPublic } = tool.operation
  const role = caller.user.role
  if (!roleMayUse(tool, role))
    return {
      kind: 'refused',
      problem: {
        code: 'forbidden_role',
        title: 'Forbidden',
        detail: `the ${role.replaceAll('_', ' ')} role may not use ${tool.name}, whatever the token's scopes`,
      },
    }
  if (scope === undefined || isPublic || caller.scopes.has(scope)) return ALLOWED
  return { kind: 'step_up', scopes: [scope] }
}
