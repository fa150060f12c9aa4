import type { AppDeps } from '../../app-deps.js'
import { type Caller, requireScope } from '../caller.js'
import { ProblemError } from '../problem.js'
import type { Row } from './fields.js'
import type { ResourceContext, ResourceDefinition } from './resource.js'
import { byName } from './resource-db.js'

/** The same 404 for a record that does not exist and one the caller may not see. */
export function notFound(resource: ResourceDefinition): ProblemError {
  return new ProblemError(404, {
    code: 'not_found',
    title: 'Not Found',
    detail: `no ${resource.object} with this id`,
  })
}

/**
 * Whether the caller reads full records (the read scope) or the public projection. Without
 * a public projection the read scope is required: 401 anonymous, 403 insufficient_scope.
 */
export function readsFull(caller: Caller, resource: ResourceDefinition, issuer: string): boolean {
  if (caller.kind === 'token' && caller.scopes.has(resource.scopes.read)) return true
  if (!resource.public) requireScope(caller, resource.scopes.read, issuer)
  return false
}

/** A write needs the write scope (403 insufficient_scope) and a role that may write (403 forbidden_role). */
export function writerOf(
  caller: Caller,
  resource: ResourceDefinition,
  deps: AppDeps,
): ResourceContext {
  const scope = resource.scopes.write
  if (!scope) throw new Error(`${resource.collection} is read-only but declares a write`)
  const writer = requireScope(caller, scope, deps.config.issuer)
  if (!resource.writeRoles.includes(writer.user.role))
    throw new ProblemError(403, {
      code: 'forbidden_role',
      title: 'Forbidden',
      detail: `the ${writer.user.role} role may not change ${resource.collection}`,
    })
  return {
    deps,
    db: byName(deps.database.db),
    caller: writer,
    now: deps.clock.now(),
  }
}

/** Whether the caller's role writes only its own records of this resource. */
function limitedToOwn(resource: ResourceDefinition, context: ResourceContext): boolean {
  const { ownership } = resource
  return ownership.kind === 'person' && ownership.limited.includes(context.caller.user.role)
}

/**
 * Refuses a write to a record the caller's role may change only when it is theirs (a lecturer
 * and someone else's event): 403 `forbidden_role`, naming the rule. `row` is the stored record
 * or the columns a write would store; roles that write every record pass.
 */
export async function requireOwner(
  resource: ResourceDefinition,
  context: ResourceContext,
  row: Row,
): Promise<void> {
  const { ownership } = resource
  if (ownership.kind !== 'person' || !limitedToOwn(resource, context)) return
  if (await ownership.owns(context, row)) return
  throw new ProblemError(403, {
    code: 'forbidden_role',
    title: 'Forbidden',
    detail: `the ${context.caller.user.role} role may change only its own ${resource.collection}: ${ownership.rule}`,
  })
}
