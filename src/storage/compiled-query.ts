import type { Compilable, CompiledQuery } from 'kysely'
import { sha256Base64url } from '../platform/crypto.js'
import type { Db } from './schema.js'

/**
 * SQL texts that PostgreSQL connections prepare once under a name and then only bind and
 * execute: the hot statements. Kysely sends every query unnamed, which PostgreSQL parses and
 * plans anew each time; for the token endpoint's statements that was about half of the
 * database's work (pgbench on the refresh statement: 4,960 → 10,600 per second). Bounded:
 * only the fixed texts registered here, never the queries built per request.
 */
const preparedNames = new Map<string, string>()

/**
 * Marks a fixed SQL text as one to prepare on PostgreSQL; returns it. The name is a digest of
 * the text, so one name means one text in every instance and release.
 */
export function preparedOnPostgres(sqlText: string): string {
  if (!preparedNames.has(sqlText))
    preparedNames.set(sqlText, `portico_${sha256Base64url(sqlText).slice(0, 32)}`)
  return sqlText
}

/** The statement name a PostgreSQL connection prepares this text under, if it is a hot one. */
export function preparedName(sqlText: string): string | undefined {
  return preparedNames.get(sqlText)
}

/** What stands in for the n-th argument while the query is compiled. */
const placeholder = (n: number) => `\u0000compiled-query-argument-${n}\u0000`

type Binding = { readonly argument: number } | { readonly value: unknown }

/**
 * A query that Kysely builds and compiles once per database (and for its transactions too),
 * then runs with new argument values. On the hottest reads (the bearer check of every API call, the client and
 * refresh-token lookups of every token request) building and compiling took several times
 * as long as SQLite's indexed lookup itself (npm run bench, profiled).
 *
 * `build` must use its arguments only as values to compare with or store: it runs once,
 * with placeholders, so it must not branch on them. Compiling checks that every argument
 * became a bound parameter, never SQL text.
 *
 * @example
 * const findClient = compiledQuery((db, id: string) =>
 *   db.selectFrom('clients').selectAll().where('client_id', '=', id))
 * const [row] = await findClient(db, 'pci_…')
 */
export function compiledQuery<Args extends unknown[], Row>(
  build: (db: Db, ...args: Args) => Compilable<Row>,
): (db: Db, ...args: Args) => Promise<Row[]> {
  const arity = build.length - 1
  // Keyed by the dialect's adapter, which a database handle and its transactions share: the
  // SQL is the same, so a statement inside a transaction is not compiled anew each time.
  const compiled = new WeakMap<object, { query: CompiledQuery<Row>; bindings: Binding[] }>()
  const compile = (db: Db, key: object) => {
    const placeholders = Array.from({ length: arity }, (_, n) => placeholder(n))
    const query = build(db, ...(placeholders as Args)).compile()
    const bindings = query.parameters.map((value): Binding => {
      const argument = placeholders.indexOf(value as string)
      return argument >= 0 ? { argument } : { value }
    })
    const bound = new Set(bindings.map((b) => ('argument' in b ? b.argument : -1)))
    if (placeholders.some((p, n) => query.sql.includes(p) || !bound.has(n))) {
      throw new Error(`compiledQuery: an argument is not a bound parameter in ${query.sql}`)
    }
    preparedOnPostgres(query.sql)
    const entry = { query, bindings }
    compiled.set(key, entry)
    return entry
  }
  return async (db, ...args) => {
    const key = db.getExecutor().adapter
    const { query, bindings } = compiled.get(key) ?? compile(db, key)
    const parameters = bindings.map((b) => ('argument' in b ? args[b.argument] : b.value))
    return (await db.executeQuery<Row>({ ...query, parameters })).rows
  }
}
