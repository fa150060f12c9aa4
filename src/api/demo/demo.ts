import type { AppDeps } from '../../app-deps.js'
import { ensureSchoolAndOwner } from '../../people/first-start.js'
import { createUserStore } from '../../storage/users.js'
import type { Caller } from '../caller.js'
import { RESOURCES } from '../registry.js'
import type { CatalogueRecord } from './catalogue/types.js'
import { saveDemoFiles } from './files.js'
import { catalogue, demoDeps, loadCatalogue } from './load-catalogue.js'
import { loadHistory, loadTeam } from './load-history.js'
import { operationsWriter } from './operations-writer.js'
import { type DemoTime, demoTime } from './when.js'

export { DEMO_PASSWORD, TEAM } from './history/people.js'
export { catalogue } from './load-catalogue.js'
export { demoTime } from './when.js'

/** Every scope the catalogue's operations need: the school owner's token would hold them. */
const WRITE_SCOPES = new Set(RESOURCES.flatMap((r) => (r.scopes.write ? [r.scopes.write] : [])))

/**
 * Creates catalogue records as the school's owner (Maya, usr_demo_maya) through the
 * resources' operations: no HTTP, no token, the same validation. Throws on the first refusal.
 */
export async function createCatalogue(
  deps: AppDeps,
  time: DemoTime,
  records: readonly CatalogueRecord[],
): Promise<void> {
  const owner = await createUserStore(deps.database.db).findById('usr_demo_maya')
  if (!owner) throw new Error('the demo owner is missing')
  const caller: Caller = {
    kind: 'token',
    user: owner,
    clientId: 'portico-demo',
    grantId: 'demo',
    scopes: WRITE_SCOPES,
    recorded: false,
  }
  const run = demoDeps(deps, time)
  await loadCatalogue(operationsWriter(run.deps, caller), run, records)
}

/**
 * Loads the demo school into an empty database (DOMAIN.md §4.7), dated relative to now: the
 * team, then the catalogue created by its owner through the resources' own operations (so
 * every record passes a client's validation; a refused one fails the load), then the
 * history as rows. Returns false, changing nothing, when the school already has courses. A
 * failure part-way leaves what was written (the catalogue is committed record by record) and
 * says so: the demo is loaded into an empty database, and again into a new one.
 */
export async function loadDemo(deps: AppDeps): Promise<boolean> {
  const db = deps.database.db
  if (await db.selectFrom('courses').select('id').limit(1).executeTakeFirst()) return false
  const time = demoTime(deps.clock.now())
  try {
    await loadTeam(db, time)
    await ensureSchoolAndOwner(deps)
    await saveDemoFiles(db, deps, time.at(0))
    await createCatalogue(deps, time, catalogue(deps, time))
    await db.transaction().execute((trx) => loadHistory(trx, time))
  } catch (error) {
    // Each catalogue record is its own operation, committed on its own: what came before the
    // failure stays, and a second load would find courses and refuse. Say so plainly.
    throw new Error(
      `the demo school failed to load part-way and the database now holds part of it; start again from an empty database: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    )
  }
  return true
}
