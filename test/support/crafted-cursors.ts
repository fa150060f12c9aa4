import type { ResourceDefinition } from '../../src/api/framework/resource.js'

/**
 * Cursors an attacker can write by hand for a list, each with the name of its trick. Every
 * one must be answered 400 `invalid_cursor` on both engines: SQLite compares anything with
 * anything, but PostgreSQL errors on a string where a bigint belongs, a fraction for an
 * integer, a number beyond the column's range, or U+0000 in text, and that error was a 500.
 */

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')
const raw = (text: string) => Buffer.from(text).toString('base64url')

/** The sort a list uses without `sort`, and its keys (with the id tie-breaker). */
export function defaultSortOf(resource: ResourceDefinition): { text: string; columns: string[] } {
  const text = resource.defaultSort ?? '-created_at'
  return { text, columns: [...text.split(',').map((p) => p.replace(/^-/, '')), 'id'] }
}

/** A value of the right type for a sort column (what a real cursor would hold). */
export function plausibleValue(resource: ResourceDefinition, column: string): unknown {
  if (column === 'id') return `${resource.idPrefix}_zzzzzzzzzzzzzzzz`
  if (column === 'created_at' || column === 'updated_at') return 1_700_000_000_000
  const schema = resource.fields[column]?.schema() ?? {}
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type
  if (schema.format === 'date-time') return 1_700_000_000_000
  if (type === 'integer') return 1
  if (type === 'boolean') return 1
  if (Array.isArray(schema.enum)) return schema.enum[0]
  return 'm'
}

/** A cursor in this server's format (collection, sort, values) that it should accept. */
export function plausibleCursor(resource: ResourceDefinition): string {
  const sort = defaultSortOf(resource)
  return b64([resource.collection, sort.text, sort.columns.map((c) => plausibleValue(resource, c))])
}

/** Wrong values for a column of any type: each is refused whatever the column holds. */
function wrongValuesFor(resource: ResourceDefinition, column: string): Array<[string, unknown]> {
  const good = plausibleValue(resource, column)
  const numeric = typeof good === 'number'
  const nullable = column !== 'id' && resource.fields[column]?.options.nullable === true
  return [
    ...(numeric
      ? ([
          ['a string where a number belongs', 'abc'],
          ['a numeric string where a number belongs', '1700000000000'],
          ['a fraction', 1.5],
          ['a huge number', 1e308],
          ['a huge negative number', -1e308],
          ['a number beyond bigint', 2 ** 63],
          ['an integer beyond 2^53', 2 ** 53],
        ] as Array<[string, unknown]>)
      : ([
          ['a number where a string belongs', 12345],
          ['U+0000 in a string', 'a\u0000b'],
          ['a lone surrogate', 'a\ud800b'],
          ['a very long string', 'x'.repeat(2500)],
        ] as Array<[string, unknown]>)),
    ['a boolean', true],
    ...(nullable ? [] : ([['null', null]] as Array<[string, unknown]>)),
    ['an array', [good]],
    ['a nested array', [[good]]],
    ['an object', { $gt: good }],
  ]
}

/**
 * The crafted cursors for a list with its default sort. `real` is a cursor the list gave
 * out, when the caller has one (it is tampered with, too).
 */
export function craftedCursors(
  resource: ResourceDefinition,
  otherCollection: string,
  real?: string,
): Array<[string, string]> {
  const sort = defaultSortOf(resource)
  const good = sort.columns.map((c) => plausibleValue(resource, c))
  const cases: Array<[string, string]> = [
    ['not base64url', '!!!!'],
    ['base64url of text that is not JSON', raw('hello, cursor')],
    ['base64url of truncated JSON', raw('["')],
    ['JSON null', b64(null)],
    ['a JSON number', raw('1e400')],
    ['a JSON string', b64('cursor')],
    ['a JSON object', b64({ sort: sort.text, after: good })],
    ['an empty array', b64([])],
    ['the old format without the collection', b64([sort.text, good])],
    ["another resource's cursor with the same sort", b64([otherCollection, sort.text, good])],
    ['another sort than the request', b64([resource.collection, 'no_such_sort', good])],
    ['too few values', b64([resource.collection, sort.text, good.slice(1)])],
    ['too many values', b64([resource.collection, sort.text, [...good, good[0]]])],
    ['values not an array', b64([resource.collection, sort.text, { 0: good[0] }])],
    ['nested value arrays', b64([resource.collection, sort.text, [good]])],
    [
      'a long array of values',
      b64([resource.collection, sort.text, Array.from({ length: 400 }, () => 1)]),
    ],
    [
      'longer than any cursor given out',
      b64([resource.collection, sort.text, good, 'x'.repeat(5000)]),
    ],
  ]
  sort.columns.forEach((column, i) => {
    for (const [trick, value] of wrongValuesFor(resource, column)) {
      const values = [...good]
      values[i] = value
      cases.push([`${column}: ${trick}`, b64([resource.collection, sort.text, values])])
    }
  })
  if (real) {
    const last = real.at(-1) === 'A' ? 'B' : 'A'
    cases.push(
      ['a real cursor with its last character changed', `${real.slice(0, -1)}${last}`],
      ['a real cursor cut short', real.slice(0, Math.floor(real.length / 2))],
      ['a real cursor given twice', `${real}${real}`],
      [
        'a real cursor with a character that is not base64url',
        `${real.slice(0, 4)}*${real.slice(4)}`,
      ],
    )
  }
  return cases
}
