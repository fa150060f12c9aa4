import type BetterSqlite3 from 'better-sqlite3'

/**
 * The data version of a SQLite connection (see {@link Database.dataVersion}): a count of the
 * writes this connection ran, moved on too whenever SQLite's `data_version` says another
 * connection committed. Only the writes that go through Kysely are counted; the connection's
 * own pragmas (the checkpoint of the WAL's tail) change no data. While a transaction is open
 * (another request's, between two of its statements) `data_version` reads that
 * transaction's snapshot and would miss a commit made meanwhile, so there is no version:
 * the caller reads the database, which waits for the transaction to end.
 */
export function trackVersions(sqlite: BetterSqlite3.Database) {
  const othersCommitted = sqlite.prepare('pragma data_version').pluck()
  let seen = othersCommitted.get()
  let version = 0
  return {
    written: () => {
      version += 1
    },
    current: (): number | undefined => {
      if (!sqlite.open || sqlite.inTransaction) return undefined
      const now = othersCommitted.get()
      if (now !== seen) {
        seen = now
        version += 1
      }
      return version
    },
  }
}
