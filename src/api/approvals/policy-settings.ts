import { type ActivityAuthor, changePolicy, policies } from '../../storage/approvals.js'
import type { Db } from '../../storage/schema.js'
import { API_OPERATION_SPECS } from '../operations.js'
import {
  CONFIRMATION_LEVELS,
  type ConfirmationLevel,
  declaredConfirmation,
  isConfirmationLevel,
} from './policy.js'

/** Every write of the catalogue: the operations a confirmation can be set for. */
export const WRITE_OPERATIONS = API_OPERATION_SPECS.filter(
  (operation) => operation.effect !== 'read',
)

/** One write's confirmation: its default (by the rule) and the owners' setting, if any. */
export interface PolicyRow {
  readonly operation: string
  /** `depends`: decided per call by the operation's named rule. */
  readonly default: ConfirmationLevel | 'depends'
  readonly setting: ConfirmationLevel | undefined
}

/** Every write with its default and the owners' setting, in the catalogue's order. */
export async function policyRows(db: Db): Promise<PolicyRow[]> {
  const settings = await policies(db)
  return WRITE_OPERATIONS.map((operation) => ({
    operation: operation.name,
    default: declaredConfirmation(operation),
    setting: settings.get(operation.name),
  }))
}

/** Why a change of `operation` to `level` cannot be made, or undefined when it can. */
export function policyChangeProblem(
  operation: string,
  level: string | undefined,
): string | undefined {
  if (!WRITE_OPERATIONS.some((write) => write.name === operation))
    return `${operation} is not a write operation (portico approvals policy lists them)`
  if (level !== 'default' && !isConfirmationLevel(level))
    return `approvals policy ${operation} needs one of ${CONFIRMATION_LEVELS.join(', ')} or default`
  return undefined
}

/** What a change came to: the setting before and after (equal: nothing changed, nothing recorded). */
export interface PolicyChange {
  readonly before: ConfirmationLevel | undefined
  readonly after: ConfirmationLevel | undefined
  readonly changed: boolean
}

/**
 * Sets one operation's confirmation (`default` goes back to the rule), recorded in the
 * activity record as `approvals.policy` when it changes anything; `portico approvals policy`
 * and the Apps and agents page both change it through here. Check
 * {@link policyChangeProblem} first.
 */
export async function changeConfirmation(
  db: Db,
  change: {
    readonly id: () => string
    readonly operation: string
    readonly level: ConfirmationLevel | 'default'
    readonly now: number
    /** Who changed it: the command line unless said. */
    readonly by?: ActivityAuthor
  },
): Promise<PolicyChange> {
  const before = (await policies(db)).get(change.operation)
  const after = change.level === 'default' ? undefined : change.level
  if (before === after) return { before, after, changed: false }
  await changePolicy(db, {
    id: change.id(),
    operation: change.operation,
    before,
    after,
    now: change.now,
    ...(change.by && { by: change.by }),
  })
  return { before, after, changed: true }
}
