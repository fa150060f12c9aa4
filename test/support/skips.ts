import { postgresAdminUrl } from './databases.js'

/**
 * A reason to skip, printed when the file is collected so that a skip is never silent, or
 * false when the tests can run. Use with `describe.skipIf(skipBecause(…))`.
 */
export function skipBecause(reason: string | undefined): string | false {
  if (reason === undefined) return false
  console.warn(`skipped: ${reason}`)
  return reason
}

/** Skips tests that need PostgreSQL on a SQLite run, saying which and why. */
export function needsPostgres(what: string): string | false {
  return skipBecause(
    postgresAdminUrl ? undefined : `${what} needs PostgreSQL; run with DATABASE_URL=postgres://…`,
  )
}
