import {
  CONFIRMATION_LEVELS,
  declaredConfirmation,
  isConfirmationLevel,
} from '../../api/approvals/policy.js'
import { API_OPERATION_SPECS } from '../../api/operations.js'
import type { Config } from '../../config.js'
import { prepare } from '../../main.js'
import { changePolicy, policies } from '../../storage/approvals.js'
import { type Args, UsageError } from '../args.js'
import { quietLogger } from './quiet-logger.js'

const WRITES = API_OPERATION_SPECS.filter((operation) => operation.effect !== 'read')

/** What a default is called in the listing: `depends` is decided per call by its named rule. */
const DEPENDS = 'depends on the call'

/**
 * `portico approvals policy`: every write and its confirmation (default, and the owners'
 * setting when changed). `portico approvals policy OPERATION none|person|owner|default`
 * changes one, recorded in the activity record (issue 35).
 */
export async function approvalsPolicy(args: Args, config: Config): Promise<number> {
  const [, , name, level] = args.words
  if (name !== undefined) {
    if (!WRITES.some((operation) => operation.name === name))
      throw new UsageError(`${name} is not a write operation (portico approvals policy lists them)`)
    if (level !== 'default' && !isConfirmationLevel(level))
      throw new UsageError(
        `approvals policy ${name} needs one of ${CONFIRMATION_LEVELS.join(', ')} or default`,
      )
  }
  const deps = await prepare(config, { logger: quietLogger() })
  try {
    const settings = await policies(deps.database.db)
    if (name !== undefined && level !== undefined) {
      const before = settings.get(name)
      const after = level === 'default' ? undefined : isConfirmationLevel(level) ? level : undefined
      if (before === after) {
        console.log(`${name}: already ${after ?? 'the default'}`)
        return 0
      }
      await changePolicy(deps.database.db, {
        id: deps.random.id('act'),
        operation: name,
        before,
        after,
        now: deps.clock.now(),
      })
      console.log(
        `${name}: ${before ?? 'default'} → ${after ?? 'default'} (recorded in the activity record)`,
      )
      return 0
    }
    const rows = WRITES.filter((operation) => name === undefined || operation.name === name).map(
      (operation) => {
        const declared = declaredConfirmation(operation)
        const setting = settings.get(operation.name)
        return {
          operation: operation.name,
          default: declared === 'depends' ? DEPENDS : declared,
          setting: setting ?? null,
        }
      },
    )
    if (args.options.json) {
      console.log(JSON.stringify(rows, null, 2))
      return 0
    }
    const width = Math.max(...rows.map((row) => row.operation.length))
    for (const row of rows)
      console.log(
        `${row.operation.padEnd(width)}  ${row.setting ?? row.default}${row.setting ? `  (set; default ${row.default})` : ''}`,
      )
    return 0
  } finally {
    await deps.database.close()
  }
}
