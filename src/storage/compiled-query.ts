import type { Compilable, CompiledQuery, Insertable, Kysely } from 'kysely'
import { sha256Base64url } from '../platform/crypto.js'
import type { Db, Schema } from './schema.js'

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

/**
 * Runs a compiled statement on a database's own handle without Kysely's executor, or
 * answers undefined when it cannot right now (SQLite inside a transaction), and Kysely runs
 * it. See {@link runDirectly}.
 */
export type DirectRunner = (
  sqlText: string,
  parameters: readonly unknown[],
) => Promise<unknown[]> | undefined

const directRunners = new WeakMap<Db, DirectRunner>()

/**
 * Lets the compiled statements of `db` (its root handle, never a transaction, which is a
 * handle of its own) go straight to the driver. Kysely's executor hands out a connection
 * through several layers of promises per statement, 2–4 % of a token request or an API
 * read on PostgreSQL (npm run bench, profiled), and adds nothing to a statement compiled
 * once; the statements built per request and every transaction still go through it.
 */
export function runDirectly(db: Db, runner: DirectRunner): void {
  directRunners.set(db, runner)
}

/** The rows of a compiled statement, run directly where {@link runDirectly} allows. */
export function execute<Row>(db: Db, query: CompiledQuery<Row>): Promise<Row[]> {
  const direct = directRunners.get(db)?.(query.sql, query.parameters)
  if (direct) return direct as Promise<Row[]>
  return db.executeQuery<Row>(query).then((result) => result.rows)
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
): CompiledRead<Args, Row> {
  const arity = build.length - 1
  // Keyed by the dialect's adapter, which a database handle and its transactions share: the
  // SQL is the same, so a statement inside a transaction is not compiled anew each time.
  const compiled = new WeakMap<object, BoundQuery<Row>>()
  const statement = (db: Db, ...args: Args): CompiledQuery<Row> => {
    const key = db.getExecutor().adapter
    let bound = compiled.get(key)
    if (!bound) {
      bound = compileBound(arity, (...placeholders) => build(db, ...(placeholders as Args)))
      compiled.set(key, bound)
    }
    return bind(bound, args)
  }
  return Object.assign(async (db: Db, ...args: Args) => execute(db, statement(db, ...args)), {
    statement,
  })
}

/**
 * A query compiled once ({@link compiledQuery}): run it, or take the statement it would run
 * (to run beside another in one round trip, see {@link pairedRead}).
 */
export type CompiledRead<Args extends unknown[], Row> = ((
  db: Db,
  ...args: Args
) => Promise<Row[]>) & {
  readonly statement: (db: Db, ...args: Args) => CompiledQuery<Row>
}

/** Where {@link pairedRead} puts the first statement's columns: a name no table's column has. */
const PAIRED = 'paired.'

/** Two reads made one: its SQL, and the first read's columns by their names in it. */
interface Pairing {
  readonly text: string
  readonly firstColumns: readonly (readonly [paired: string, own: string])[]
}

/**
 * The pairings made, by the first read's SQL, then the second's (a few fixed pairs). Two maps
 * rather than one keyed by the joined texts: joining them was a new string of several hundred
 * characters to hash at every request (2–3 µs), where these texts are the same strings each
 * time, their hashes kept.
 */
const pairings = new Map<string, Map<string, Pairing>>()

function pairingOf(first: CompiledQuery, columns: readonly string[], second: string): Pairing {
  let bySecond = pairings.get(first.sql)
  if (!bySecond) {
    bySecond = new Map()
    pairings.set(first.sql, bySecond)
  }
  let pairing = bySecond.get(second)
  if (!pairing) {
    const text = pairedSql(first.sql, first.parameters.length, columns, second)
    preparedOnPostgres(text)
    pairing = { text, firstColumns: columns.map((c) => [PAIRED + c, c] as const) }
    bySecond.set(second, pairing)
  }
  return pairing
}

/**
 * Two reads of at most one row each, run as one statement: one round trip to PostgreSQL
 * instead of two (the bearer check and the record an API call reads, npm run bench). The
 * first read's `columns` come back under names of their own, so that the two rows may share
 * column names; each is undefined when its read found nothing. Both reads see one snapshot.
 *
 *     select "a"."c1" as "paired.c1", …, "b".* from (select 1) as "one"
 *       left join (first) as "a" on true left join (second) as "b" on true
 */
export async function pairedRead<First extends object, Second extends object>(
  db: Db,
  first: CompiledQuery<First>,
  columns: readonly (keyof First & string)[],
  second: CompiledQuery<Second>,
): Promise<{ first: First | undefined; second: Second | undefined }> {
  const { text, firstColumns } = pairingOf(first, columns, second.sql)
  const [row] = await execute<Record<string, unknown>>(db, {
    ...second,
    sql: text,
    parameters: [...first.parameters, ...second.parameters],
  } as CompiledQuery<Record<string, unknown>>)
  if (!row) return { first: undefined, second: undefined }
  // A row has a column that is never null (its key): all null is no row.
  const a: Record<string, unknown> = {}
  let inFirst = false
  for (const [paired, own] of firstColumns) {
    const value = row[paired]
    a[own] = value
    if (value !== null) inFirst = true
  }
  const b: Record<string, unknown> = {}
  let inSecond = false
  for (const name in row) {
    if (name.startsWith(PAIRED)) continue
    const value = row[name]
    b[name] = value
    if (value !== null) inSecond = true
  }
  return {
    first: inFirst ? (a as First) : undefined,
    second: inSecond ? (b as Second) : undefined,
  }
}

/**
 * The one statement of {@link pairedRead}: the second read's PostgreSQL placeholders
 * ($1, $2 …) numbered on after the first's; SQLite's `?` are positional already.
 */
export function pairedSql(
  first: string,
  firstParameters: number,
  columns: readonly string[],
  second: string,
): string {
  const quote = (name: string) => `"${name.replaceAll('"', '""')}"`
  const shifted = second.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + firstParameters}`)
  const named = columns.map((c) => `"a".${quote(c)} as ${quote(PAIRED + c)}`).join(', ')
  return (
    `select ${named}, "b".* from (select 1) as "one" ` +
    `left join (${first}) as "a" on true left join (${shifted}) as "b" on true`
  )
}

/**
 * {@link compiledQuery} for a query whose shape is chosen at run time (a list's filters,
 * sort and pagination): one such function per shape, its `arity` arguments given as an
 * array, any of which the query may leave out (the time of a visibility that does not
 * depend on it). Returns undefined from the first call on when `build` turns an argument
 * into anything but a bound parameter: that shape is then built anew on every request.
 */
export function compiledShape<Row>(
  arity: number,
  build: (db: Db, args: readonly unknown[]) => Compilable<Row>,
): (db: Db, args: readonly unknown[]) => Promise<Row[]> | undefined {
  const compiled = new WeakMap<object, BoundQuery<Row> | null>()
  return (db, args) => {
    const key = db.getExecutor().adapter
    let bound = compiled.get(key)
    if (bound === undefined) {
      try {
        bound = compileBound(arity, (...placeholders) => build(db, placeholders), true)
      } catch {
        bound = null
      }
      compiled.set(key, bound)
    }
    if (bound === null) return undefined
    return execute(db, bind(bound, args))
  }
}

/**
 * A query over a list of values (`in (…)`), compiled once for each length up to `most`, as
 * {@link compiledShape} does; a longer list, or a query that does not bind its values, is
 * built and compiled anew each time.
 */
export function compiledPerLength<Row>(
  most: number,
  build: (db: Db, values: readonly unknown[]) => Compilable<Row>,
): (db: Db, values: readonly unknown[]) => Promise<Row[]> {
  const lengths = new Map<number, ReturnType<typeof compiledShape<Row>>>()
  return async (db, values) => {
    let run = lengths.get(values.length)
    if (!run && values.length <= most) {
      run = compiledShape(values.length, build)
      lengths.set(values.length, run)
    }
    const compiled = run?.(db, values)
    if (compiled) return compiled
    return (await db.executeQuery(build(db, values).compile())).rows
  }
}

/** A compiled query, and where each of its parameters comes from. */
interface BoundQuery<Row> {
  readonly query: CompiledQuery<Row>
  readonly bindings: readonly Binding[]
}

/**
 * Compiles what `build` makes of `arity` placeholders; each must become a bound parameter,
 * or, when `unused` allows it, be left out of the query altogether (never SQL text).
 */
function compileBound<Row>(
  arity: number,
  build: (...placeholders: string[]) => Compilable<Row>,
  unused = false,
): BoundQuery<Row> {
  const placeholders = Array.from({ length: arity }, (_, n) => placeholder(n))
  const query = build(...placeholders).compile()
  const bindings = query.parameters.map((value): Binding => {
    const argument = placeholders.indexOf(value as string)
    return argument >= 0 ? { argument } : { value }
  })
  const bound = new Set(bindings.map((b) => ('argument' in b ? b.argument : -1)))
  if (placeholders.some((p, n) => query.sql.includes(p) || (!unused && !bound.has(n)))) {
    throw new Error(`compiledQuery: an argument is not a bound parameter in ${query.sql}`)
  }
  preparedOnPostgres(query.sql)
  return { query, bindings }
}

/** The compiled query with this call's arguments in place of its placeholders. */
function bind<Row>({ query, bindings }: BoundQuery<Row>, args: readonly unknown[]) {
  const parameters = bindings.map((b) => ('argument' in b ? args[b.argument] : b.value))
  return { ...query, parameters }
}

/** Distinct column lists an insert compiles for at most; rows are made by fixed code. */
const INSERT_SHAPES = 8

/**
 * An insert of one row into `table`, compiled once for each list of columns it is given
 * (the row's own keys, in their order; an undefined value leaves its column out, so the
 * column's default applies, as with Kysely: write null for NULL), as
 * {@link compiledQuery} does for a query written out. Building and compiling a Kysely insert
 * cost more than SQLite's insert itself on the hot paths (an authorization stores a request,
 * a grant and a code; every token request stores tokens).
 *
 * @example
 * const insertGrant = compiledInsert('grants')
 * await insertGrant(trx, grant)
 */
export function compiledInsert<T extends keyof Schema & string>(
  table: T,
): (db: Db, row: Insertable<Schema[T]>) => Promise<void> {
  const compiled = new WeakMap<object, Map<string, BoundQuery<unknown>>>()
  return async (db, row) => {
    const values = row as Record<string, unknown>
    const columns = Object.keys(values).filter((column) => values[column] !== undefined)
    const key = db.getExecutor().adapter
    let shapes = compiled.get(key)
    if (!shapes) {
      shapes = new Map()
      compiled.set(key, shapes)
    }
    const shape = columns.join('\u0000')
    let bound = shapes.get(shape)
    if (!bound) {
      bound = compileBound(columns.length, (...placeholders) =>
        (db as Kysely<Record<string, Record<string, unknown>>>)
          .insertInto(table)
          .values(Object.fromEntries(columns.map((column, n) => [column, placeholders[n]]))),
      )
      if (shapes.size < INSERT_SHAPES) shapes.set(shape, bound)
    }
    await execute(
      db,
      bind(
        bound,
        columns.map((column) => values[column]),
      ),
    )
  }
}
