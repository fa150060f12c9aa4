/**
 * Whether a value taken from a request can never name a stored row. Nothing Portico stores
 * holds U+0000, and PostgreSQL cannot even compare a text value that does (the statement
 * fails), so a look-up by such a value answers "not found" without asking the database,
 * the same on SQLite and PostgreSQL.
 */
export function cannotBeStored(value: string): boolean {
  return value.includes('\0')
}
