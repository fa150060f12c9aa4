import { createRequire } from 'node:module'
import type BetterSqlite3 from 'better-sqlite3'

/**
 * The better-sqlite3 this Node runs. Version 12 wraps its objects in `node::ObjectWrap`: on
 * Node 24.19 and later, V8 collecting one of its statements outside JavaScript (an idle-time
 * GC, a worker thread between tasks) aborts the process ("Assertion failed: (env) != nullptr"
 * in `RemoveEnvironmentCleanupHook`). Version 13 is built on Node-API, without that wrapper,
 * and ships its binaries in the package; it needs Node 22 or later (on Node 20 it crashes as
 * it loads). So Node 22 and later run 13 (installed under the alias `better-sqlite3-node22`),
 * Node 20 runs 12. When Node 20 goes, 13 becomes the only `better-sqlite3`.
 */
export const SQLITE_DRIVER =
  Number(process.versions.node.split('.')[0]) >= 22 ? 'better-sqlite3-node22' : 'better-sqlite3'

const require = createRequire(import.meta.url)

/** The driver's Database class (the same API in both versions). */
export const SqliteDatabase: typeof BetterSqlite3 = require(SQLITE_DRIVER)

/** Where the driver is, for a worker thread that loads it by itself. */
export const SQLITE_DRIVER_PATH: string = require.resolve(SQLITE_DRIVER)
