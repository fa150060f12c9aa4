import type { AppDeps } from '../../app-deps.js'
import { countRefusal } from '../../storage/activity.js'
import type { Caller } from '../caller.js'
import type { ApiOperation, OperationInput, OperationSpec } from '../framework/operation.js'
import { ProblemError } from '../problem.js'

/** The refusals that matter for security: a token used beyond its scope or its person's role. */
const COUNTED = new Set(['insufficient_scope', 'forbidden_role'])

/**
 * Counts, per grant, a call of `operation` refused with `status` and `code` when it is one the
 * activity record counts (issue 21): a write (not a read) refused a token for its scope or its
 * person's role (403 `insufficient_scope` or `forbidden_role`), whichever binding refused it:
 * the operation itself (REST), or the MCP endpoint before it (a step-up challenge, a tool the
 * role may not use). Never throws: the refusal is answered whether or not it could be counted.
 */
export async function countRefused(
  deps: AppDeps,
  operation: Pick<OperationSpec, 'effect'>,
  caller: Caller,
  status: number,
  code: string,
): Promise<void> {
  if (operation.effect === 'read' || caller.kind !== 'token') return
  if (status !== 403 || !COUNTED.has(code)) return
  try {
    await countRefusal(deps.database.db, {
      grantId: caller.grantId,
      userId: caller.user.id,
      clientId: caller.clientId,
      now: deps.clock.now(),
    })
  } catch (failure) {
    deps.logger.warn({ err: failure }, 'counting a refused write failed')
  }
}

/**
 * A write operation that counts the calls refused for scope or role (countRefused): not
 * stored one by one, so a client hammering what it may not do cannot fill the database.
 * Reads are returned as they are.
 */
export function countingRefusals(deps: AppDeps, operation: ApiOperation): ApiOperation {
  if (operation.effect === 'read') return operation
  const count = async (caller: Caller, error: unknown) => {
    if (error instanceof ProblemError)
      await countRefused(deps, operation, caller, error.status, error.fields.code)
  }
  const { bodyLimit } = operation
  return {
    ...operation,
    async run(input: OperationInput) {
      try {
        return await operation.run(input)
      } catch (error) {
        await count(input.caller, error)
        throw error
      }
    },
    ...(bodyLimit && {
      bodyLimit(input: OperationInput) {
        try {
          return bodyLimit(input)
        } catch (error) {
          void count(input.caller, error)
          throw error
        }
      },
    }),
  }
}
