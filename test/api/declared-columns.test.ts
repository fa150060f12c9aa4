import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RESOURCES } from '../../src/api/registry.js'
import { startTestServer, type TestServer } from '../support/server.js'

// Every field a resource writes, filters, sorts or searches by is a column of its table, as the
// migrations made it (on the suite's database: SQLite, and PostgreSQL where DATABASE_URL is
// set), unless it is virtual (kept in child rows by the resource itself). The others are
// derived for the answer (counts, stats: read only, loaded by `enrich`). A column renamed in a
// migration but not in its declaration fails here, before any request does; `npm run
// typecheck` catches the same in the hand-written queries (src/storage/schema-drift.ts).

/** Written fields that are no column by design, and why. */
const ALIASES: Readonly<Record<string, readonly string[]>> = {
  // A manual subscription's period end under the name the grant takes; the write stores it
  // as current_period_end (subscriptions.resource.ts).
  subscriptions: ['ends_at'],
}

let server: TestServer
let columns: Map<string, Set<string>>

beforeAll(async () => {
  server = await startTestServer()
  const tables = await server.deps.database.db.introspection.getTables()
  columns = new Map(tables.map((t) => [t.name, new Set(t.columns.map((c) => c.name))]))
})
afterAll(async () => {
  await server?.close()
})

describe('resource declarations against the migrated tables', () => {
  it.each(RESOURCES.map((r) => [r.collection, r] as const))('%s', (_, resource) => {
    const table = columns.get(resource.table)
    expect(table, `table ${resource.table}`).toBeDefined()
    const missing = Object.entries(resource.fields)
      .filter(([name, { options }]) => {
        if (options.virtual || table?.has(name)) return false
        if (ALIASES[resource.collection]?.includes(name)) return false
        const derived = options.readOnly && !options.filter && !options.sortable && !options.search
        return !derived || options.unique || options.default !== undefined
      })
      .map(([name]) => name)
    expect(missing).toEqual([])
    for (const column of ['id', 'created_at', 'updated_at']) expect(table?.has(column)).toBe(true)
  })
})
