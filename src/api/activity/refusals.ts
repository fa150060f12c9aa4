import type { AppDeps } from '../../app-deps.js'
import { countRefusal } from '../../storage/activity.js'
import type { Caller } from '../caller.js'
import type { ApiOperation, OperationInput } from '../framework/operation.js'
import { ProblemError } from '../problem.js'

/** The refusals that matter for security: a token used beyond its scope or its person's role. */
const COUNTED = new Set(['insufficient_scope', 'forbidden_role'])

/**
 * A write operation that counts, per grant, the calls refused for scope or role (issue 21):
 * not stored one by one, so a client hammering what it may not do cannot fill the database.
 * Reads are returned as they are.
 */
export function countingRefusals(deps: AppDeps, operation: ApiOperation): ApiOperation {
  if (operation.effect === 'read') return operation
  const count = async (caller: Caller, error: unknown) => {
    if (caller.kind !== 'token') return
    if (!(error instanceof ProblemError) || error.status !== 403) return
    if (!COUNTED.has(error.fields.code)) return
    try {
      await countRefusal(deps.database.db, {
        grantId: caller.grantId,
        userId: caller.user.id,
        clientId: caller.clientId,
        now: deps.clock.now(),
      })
    } catch (failure) {
      // The refusal is answered whether or not it could be counted.
      deps.logger.warn({ err: failure }, 'counting a refused write failed')
    }
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
