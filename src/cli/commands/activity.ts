import { activityView, listActivity } from '../../api/activity/activity-records.js'
import { labelsOf } from '../../api/activity/labels.js'
import { describeActivity } from '../../api/activity/sentence.js'
import { ProblemError } from '../../api/problem.js'
import type { Config } from '../../config.js'
import { prepare } from '../../main.js'
import { refusalsList } from '../../storage/activity.js'
import { approvalOutcomesList } from '../../storage/approvals.js'
import { type Args, UsageError } from '../args.js'
import { quietLogger } from './quiet-logger.js'

const UNITS: Readonly<Record<string, number>> = { m: 60_000, h: 3_600_000, d: 86_400_000 }

/** `--since 7d` (or 24h, 30m) as the RFC 3339 time that long before now; a time as it is. */
function sinceOf(raw: string, now: number): string {
  const relative = /^(\d{1,6})([mhd])$/.exec(raw)
  if (!relative) return raw
  const ms = now - Number(relative[1]) * (UNITS[relative[2] ?? 'd'] ?? 0)
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z')
}

/**
 * `portico activity`: what the apps changed with their tokens, newest first (issue 21): one
 * line per change, or JSON as the API answers it.
 */
export async function activityCommand(args: Args, config: Config): Promise<number> {
  const deps = await prepare(config, { logger: quietLogger() })
  try {
    const { client, person, since, limit = '50' } = args.options
    const query = {
      ...(client !== undefined && { client }),
      ...(person !== undefined && { person }),
      ...(since !== undefined && { since: sinceOf(since, deps.clock.now()) }),
      limit,
    }
    let page: Awaited<ReturnType<typeof listActivity>>
    try {
      page = await listActivity(deps, query)
    } catch (error) {
      if (error instanceof ProblemError) {
        const detail = error.fields.errors?.[0]?.message ?? error.message
        throw new UsageError(`${detail} (--since takes an RFC 3339 time or 30m, 24h, 7d)`)
      }
      throw error
    }
    const records = page.rows.map(activityView)
    if (args.options.json) {
      console.log(JSON.stringify(records, null, 2))
      return 0
    }
    if (records.length === 0) console.log('no activity')
    const labels = await labelsOf(deps, page.rows)
    for (const [i, record] of records.entries()) {
      const row = page.rows[i] ?? {}
      const label = labels.get(`${row.record_type}:${row.record_id}`)
      const app = `${record.client_name ?? '(unnamed)'} (${record.client_id})`
      const sentence = describeActivity(
        {
          operation: String(record.operation),
          record_type: record.record_type as string | null,
          record_id: record.record_id as string | null,
          changes: record.changes as [],
        },
        label,
      )
      console.log(`${record.created_at}  ${app}  by ${record.user_id}: ${sentence}`)
    }
    if (page.hasMore)
      console.log(`… ${page.total - records.length} more (raise --limit, up to 100)`)
    // Refusals are counted per grant, not listed: their sums close the listing.
    for (const refused of await refusalsList(deps.database.db, client))
      console.log(
        `refused (scope or role): ${refused.count} write${Number(refused.count) === 1 ? '' : 's'} by ${refused.client_id} for ${refused.user_id} (grant ${refused.grant_id}), last ${new Date(Number(refused.last_at)).toISOString()}`,
      )
    // So are the calls held for a yes that never got one (issue 35).
    for (const held of await approvalOutcomesList(deps.database.db, deps.clock.now(), client))
      console.log(
        `held for a yes: ${held.declined} declined, ${held.expired} expired, by ${held.clientId} for ${held.userId} (grant ${held.grantId})`,
      )
    return 0
  } finally {
    await deps.database.close()
  }
}
