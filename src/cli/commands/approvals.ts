import { isConfirmationLevel } from '../../api/approvals/policy.js'
import {
  changeConfirmation,
  policyChangeProblem,
  policyRows,
} from '../../api/approvals/policy-settings.js'
import type { Config } from '../../config.js'
import { prepare } from '../../main.js'
import { type Args, UsageError } from '../args.js'
import { quietLogger } from './quiet-logger.js'

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
    const problem = policyChangeProblem(name, level)
    if (problem) throw new UsageError(problem)
  }
  const deps = await prepare(config, { logger: quietLogger() })
  try {
    if (name !== undefined && level !== undefined) {
      const change = await changeConfirmation(deps.database.db, {
        id: () => deps.random.id('act'),
        operation: name,
        level: level === 'default' || !isConfirmationLevel(level) ? 'default' : level,
        now: deps.clock.now(),
      })
      if (!change.changed) {
        console.log(`${name}: already ${change.after ?? 'the default'}`)
        return 0
      }
      console.log(
        `${name}: ${change.before ?? 'default'} → ${change.after ?? 'default'} (recorded in the activity record)`,
      )
      return 0
    }
    const rows = (await policyRows(deps.database.db))
      .filter((row) => name === undefined || row.operation === name)
      .map((row) => ({
        operation: row.operation,
        default: row.default === 'depends' ? DEPENDS : row.default,
        setting: row.setting ?? null,
      }))
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
