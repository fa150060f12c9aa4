/**
 * Rows read by key, kept in memory for as long as the database's data version (see
 * `Database.dataVersion`) stays where it was when they were read: any write by this process,
 * and any commit by another connection, makes every entry stale. It serves the hottest reads
 * (the bearer check of every API call, the client of every OAuth request) between writes,
 * without ever answering from data a write could have changed, so a revocation, a disabled
 * person or a deleted client takes effect at the very next request, as without it.
 *
 * Only what was found is kept, never an absence, so unknown keys (guessed tokens) cannot
 * fill it; it holds at most `capacity` entries, the oldest going first.
 *
 * @example
 * const version = dataVersion()   // before the read, never after
 * const row = cache.get(key, version) ?? (await read(key))
 * if (row) cache.set(key, version, row)
 */
export class ReadCache<V> {
  /** What was read under {@link #version}; entries of older versions are dropped whole. */
  readonly #entries = new Map<string, V>()
  #version = Number.NEGATIVE_INFINITY
  readonly #capacity: number

  constructor(capacity: number) {
    this.#capacity = capacity
  }

  /** The value read under `version`, or undefined if none was or the data moved on since. */
  get(key: string, version: number): V | undefined {
    return version === this.#version ? this.#entries.get(key) : undefined
  }

  /**
   * Keeps a value read under `version`, which must have been taken before the read began:
   * a write that runs meanwhile then moves the version on and the value is never served.
   */
  set(key: string, version: number, value: V): void {
    if (version < this.#version) return
    if (version > this.#version) {
      this.#entries.clear()
      this.#version = version
    }
    this.#entries.delete(key)
    if (this.#entries.size >= this.#capacity)
      this.#entries.delete(this.#entries.keys().next().value as string)
    this.#entries.set(key, value)
  }

  /** Entries held, for tests. */
  get size(): number {
    return this.#entries.size
  }
}

/**
 * The value, frozen through and through (objects and arrays), as whatever a {@link ReadCache}
 * keeps is handed to every later caller: none of them can change what the others see.
 */
export function frozen<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) frozen(inner)
    Object.freeze(value)
  }
  return value
}
