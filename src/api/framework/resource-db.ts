import type { Kysely, Transaction } from 'kysely'
import type { Db, Schema } from '../../storage/schema.js'
import type { Row } from './fields.js'

/**
 * The database as the resource framework sees it: tables by name, columns by name, for the
 * queries it builds from declarations (a declared column is a string there). `Schema`
 * (storage/schema.ts, checked against the migrations at every type check) types the same
 * tables for hand-written queries. A `ResourceDb` is assignable to `Db` as it is.
 */
export type ResourceDb = Kysely<Schema & Record<string, Row>>

/**
 * The same handle (never a copy: compiled reads and SQLite's direct runner are keyed by the
 * instance) seen by name. TypeScript checks that the two views overlap; `Schema`'s tables are
 * rows by name, only without the index signature that lets a declaration name them.
 */
export const byName = (db: Db | Transaction<Schema>): ResourceDb => db as ResourceDb
