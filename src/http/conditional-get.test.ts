import { describe, expect, it } from 'vitest'
import { ifNoneMatchHolds } from './conditional-get.js'

describe('If-None-Match (RFC 9110 §13.1.2)', () => {
  const etag = '"abc"'
  it.each([
    ['"abc"', true],
    ['W/"abc"', true],
    ['"x", "abc"', true],
    ['"x",W/"abc"', true],
    ['*', true],
    [' * ', true],
    ['"abd"', false],
    ['abc', false],
    ['"x", *', false],
    ['', false],
  ])('%j against "abc": %s', (header, holds) => {
    expect(ifNoneMatchHolds(header, etag)).toBe(holds)
  })
  it('holds nothing without the header', () => {
    expect(ifNoneMatchHolds(undefined, etag)).toBe(false)
  })
  it('compares weakly against a weak ETag too', () => {
    expect(ifNoneMatchHolds('"abc"', 'W/"abc"')).toBe(true)
  })
})
