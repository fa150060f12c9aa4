import { describe, expect, it } from 'vitest'
import { ReadCache } from './read-cache.js'

describe('ReadCache', () => {
  it('serves a value only under the version it was read under', () => {
    const cache = new ReadCache<string>(10)
    cache.set('a', 3, 'A')
    expect(cache.get('a', 3)).toBe('A')
    expect(cache.get('a', 4)).toBeUndefined()
    expect(cache.get('b', 3)).toBeUndefined()
  })

  it('drops every entry once a newer version is kept, and ignores a value read under an older one', () => {
    const cache = new ReadCache<string>(10)
    cache.set('a', 1, 'A')
    cache.set('b', 2, 'B')
    expect(cache.size).toBe(1)
    expect(cache.get('a', 1)).toBeUndefined()
    // Read before the write that made version 2: it may be what that write changed.
    cache.set('a', 1, 'A')
    expect(cache.get('a', 1)).toBeUndefined()
    expect(cache.get('a', 2)).toBeUndefined()
    expect(cache.get('b', 2)).toBe('B')
  })

  it('holds at most its capacity, the oldest going first', () => {
    const cache = new ReadCache<number>(3)
    for (const [n, key] of ['a', 'b', 'c', 'd'].entries()) cache.set(key, 1, n)
    expect(cache.size).toBe(3)
    expect(cache.get('a', 1)).toBeUndefined()
    expect(cache.get('d', 1)).toBe(3)
    // Keeping a key again makes it the newest.
    cache.set('b', 1, 10)
    cache.set('e', 1, 4)
    expect(cache.get('b', 1)).toBe(10)
    expect(cache.get('c', 1)).toBeUndefined()
  })
})
