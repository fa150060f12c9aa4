import type { AppDeps } from '../../app-deps.js'
import { etagOfJson } from '../conventions.js'
import type { Row } from './fields.js'

/** A record's answer as it was serialised; its ETag is worked out when first asked for. */
export interface KeptView {
  readonly json: string
  etag?: string
}

/** The strong ETag of an answer, worked out once however often the answer is given. */
export function keptEtag(view: KeptView): string {
  view.etag ??= etagOfJson(view.json)
  return view.etag
}

/**
 * A copy of a row or of an object `enrich` added, as a Map: its member count is its size, so
 * comparing it with a fresh row allocates nothing (a for-in over an object without a
 * prototype allocated its names every time: 5 % of what a page of 20 events allocated,
 * sampled), and a member named __proto__ stays a member.
 */
type Members = Map<string, unknown>

interface Kept {
  readonly view: KeptView
  readonly row: Members
  readonly size: number
}

/**
 * The serialised answers of one resource's records, kept while their rows stay the same.
 *
 * A record's JSON is a function of its row (with what `enrich` added to it: an event's
 * tickets and sold counts), of the view (full or public, the `fields` chosen) and of the
 * configuration, unless its `computed` members read anything else (the clock: a coupon's
 * status, a file's signed link): such a view is never kept ({@link tracked}). Every request
 * still reads the row, so its token, role, scope and the record's visibility are checked as
 * before; only when the row read equals, column for column, the row a kept answer was made
 * from is the projection, its `JSON.stringify` and the ETag's SHA-256 skipped: a conditional
 * GET that matches is then the bearer check, one row read and a comparison, a page of a list
 * the rows' reads and their answers joined (npm run bench: `conditional`, `courses`,
 * `catalogue`, `events`, `api-object`).
 *
 * Bounded by the characters kept (rows and answers); the oldest answers go first.
 */
export class ViewMemo {
  readonly #kept = new Map<string, Kept>()
  #size = 0
  readonly #budget: number

  /** @param budget characters of rows and answers kept at most */
  constructor(budget: number) {
    this.#budget = budget
  }

  /**
   * The answer kept under `key` when it was made from a row equal to `row`; otherwise the one
   * `make` serialises from it, kept unless `make` says not to.
   */
  answer(key: string, row: Row, make: () => { json: string; keep: boolean }): KeptView {
    const kept = this.#kept.get(key)
    if (kept !== undefined && sameMembers(kept.row, row)) return kept.view
    const { json, keep } = make()
    const view = { json }
    if (keep) this.#keep(key, row, view)
    return view
  }

  /**
   * Keeps an answer made from `row`, unless the row holds something other than JSON's values
   * (strings, numbers, booleans, null, and the arrays and plain objects `enrich` adds).
   */
  #keep(key: string, row: Row, view: KeptView): void {
    const copy = copyOf(row)
    if (copy === undefined || !(copy.value instanceof Map)) return
    const size = copy.size + view.json.length + 29 + key.length
    if (size > this.#budget / 8) return
    this.#forget(key)
    this.#kept.set(key, { view, row: copy.value as Members, size })
    this.#size += size
    for (const [oldest] of this.#kept) {
      if (this.#size <= this.#budget) break
      this.#forget(oldest)
    }
  }

  #forget(key: string): void {
    const kept = this.#kept.get(key)
    if (kept === undefined) return
    this.#kept.delete(key)
    this.#size -= kept.size
  }
}

/**
 * Whether `b` has exactly the members of `a` ({@link copyOf} made it, so with no undefined in
 * it), and equal ones: a row column for column, what `enrich` added value for value.
 */
function sameMembers(a: Members, b: Row): boolean {
  let seen = 0
  for (const name in b) {
    const value = b[name]
    if (value === undefined) return false
    const kept = a.get(name)
    if (value !== kept && !sameValue(kept, value)) return false
    seen += 1
  }
  return seen === a.size
}

/** Whether `b` equals `a`, a value of JSON's kinds {@link copyOf} made. */
function sameValue(a: unknown, b: unknown): boolean {
  if (typeof b !== 'object' || b === null) return false
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i] && !sameValue(a[i], b[i])) return false
    return true
  }
  return (
    a instanceof Map &&
    !Array.isArray(b) &&
    Object.getPrototypeOf(b) === Object.prototype &&
    sameMembers(a as Members, b as Row)
  )
}

/**
 * A copy of a value of JSON's kinds, with the characters it holds (names counted, 8 for a
 * number), or undefined for anything else (undefined, a Buffer, a Date): its row's answer is
 * not kept. Written out rather than `structuredClone`, which costs twice a `JSON.stringify`
 * of the row, on every answer not yet kept.
 */
function copyOf(value: unknown): { value: unknown; size: number } | undefined {
  switch (typeof value) {
    case 'string':
      return { value, size: value.length }
    case 'number':
    case 'boolean':
      return { value, size: 8 }
    case 'object': {
      if (value === null) return { value, size: 8 }
      let size = 2
      if (Array.isArray(value)) {
        const items: unknown[] = []
        for (const item of value) {
          const copy = copyOf(item)
          if (copy === undefined) return undefined
          items.push(copy.value)
          size += copy.size + 1
        }
        return { value: items, size }
      }
      if (Object.getPrototypeOf(value) !== Object.prototype) return undefined
      const members: Members = new Map()
      for (const name in value) {
        const copy = copyOf((value as Record<string, unknown>)[name])
        if (copy === undefined) return undefined
        members.set(name, copy.value)
        size += name.length + copy.size + 1
      }
      return { value: members, size }
    }
    default:
      return undefined
  }
}

/**
 * `deps` as a view's `computed` members see it, noting whether they read anything but the
 * configuration (which is the same for the life of the process).
 */
export function tracked(deps: AppDeps): { deps: AppDeps; readOther: () => boolean } {
  let other = false
  const seen = new Proxy(deps, {
    get(target, name, receiver) {
      if (name !== 'config') other = true
      return Reflect.get(target, name, receiver)
    },
  })
  return { deps: seen, readOther: () => other }
}
