import type { Selectable } from 'kysely'
import type { MigratedTables } from './generated/tables.js'
import type { Schema } from './schema.js'

/**
 * `Schema` (the hand-written tables every query is typed by) checked against the tables the
 * migrations make (generated/tables.ts, written by scripts/migrated-tables.mjs at every
 * `npm run typecheck`): a table or column only one side has, or a column whose nullability or
 * coarse type (string, number, bytes) differs, fails the type check with a sentence naming it.
 * Literal unions in `Schema` (a status's values) narrow a migrated text column and agree with it.
 */

/** A column's type as the check compares it: "string", "number | null" and so on. */
type Coarse<T> = `${Base<Exclude<T, null>>}${null extends T ? ' | null' : ''}`
type Base<T> = T extends string
  ? 'string'
  : T extends number
    ? 'number'
    : T extends Buffer
      ? 'bytes'
      : 'unknown'

/** A table's columns as a select reads them (Kysely's `Selectable` unwraps `Generated<…>`). */
type Columns<Table> = Selectable<Required<Table>>

/** An optional member (`x?:`) is no column: every column is there, `x: T | null` when empty. */
type OptionalDrift<Name extends string, Table> = {
  [C in keyof Table]-?: object extends Pick<Table, C>
    ? `${Name}.${C & string}: optional in Schema; a column is always there (T | null)`
    : never
}[keyof Table]

type ColumnDrift<Name extends string, Declared, Migrated> = {
  [C in keyof Declared | keyof Migrated]: C extends string
    ? C extends keyof Migrated
      ? C extends keyof Declared
        ? [Coarse<Declared[C]>] extends [Coarse<Migrated[C]>]
          ? [Coarse<Migrated[C]>] extends [Coarse<Declared[C]>]
            ? never
            : `${Name}.${C}: Schema has ${Coarse<Declared[C]>}, the migrations make ${Coarse<Migrated[C]>}`
          : `${Name}.${C}: Schema has ${Coarse<Declared[C]>}, the migrations make ${Coarse<Migrated[C]>}`
        : `${Name}.${C}: made by the migrations, missing from Schema`
      : `${Name}.${C}: in Schema, made by no migration`
    : never
}[keyof Declared | keyof Migrated]

/** Every disagreement between `Schema` and the migrations, as a sentence; never when none. */
export type SchemaDrift = {
  [T in keyof Schema | keyof MigratedTables]: T extends keyof Schema
    ? T extends keyof MigratedTables
      ? ColumnDrift<T, Columns<Schema[T]>, MigratedTables[T]> | OptionalDrift<T, Schema[T]>
      : `${T}: a table in Schema, made by no migration`
    : `${T & string}: a table the migrations make, missing from Schema`
}[keyof Schema | keyof MigratedTables]

/** Fails to compile, naming each disagreement, when `SchemaDrift` is not never. */
type Agree<Drift extends never> = Drift
export type SchemaMatchesMigrations = Agree<SchemaDrift>
