import { describe, expect, it } from 'vitest'
import { AuthorizePageError } from './errors.js'
import { checkState, MAX_STATE_BYTES, rawQueryValues } from './state.js'

describe('checkState: RFC 6749 §4.1.2, returned exactly or refused with a page', () => {
  it('passes text up to the bound in bytes of UTF-8', () => {
    expect(checkState(undefined)).toBeUndefined()
    expect(checkState('')).toBe('')
    const atBound = `${'€'.repeat(682)}ab`
    expect(Buffer.byteLength(atBound)).toBe(MAX_STATE_BYTES)
    expect(checkState(atBound, [encodeURIComponent(atBound)])).toBe(atBound)
    expect(checkState('a b+%', ['a+b%2B%25'])).toBe('a b+%')
    // A `%` that starts no escape is kept as a literal by the parser: still text.
    expect(checkState('100%', ['100%'])).toBe('100%')
  })

  it.each([
    ['one byte over the bound', 's'.repeat(MAX_STATE_BYTES + 1), []],
    ['one byte over in characters under the bound', `${'€'.repeat(682)}abc`, []],
    ['given twice', ['a', 'b'], []],
    ['a lone surrogate', 'a\uD800', []],
    ['escapes that are not UTF-8', '%FF', ['%FF']],
    ['an overlong encoding', '%C0%AF', ['%C0%AF']],
    ['an encoded surrogate', '%ED%A0%80', ['%ED%A0%80']],
  ] as const)('refuses %s', (_what, value, raw) => {
    expect(() => checkState(value, raw)).toThrow(AuthorizePageError)
  })
})

describe('rawQueryValues', () => {
  it('finds every raw value of a name, its own spelling encoded or not', () => {
    expect(rawQueryValues('/p?a=1&state=%FF&b&st%61te=x+y&state', 'state')).toEqual([
      '%FF',
      'x+y',
      '',
    ])
    expect(rawQueryValues('/p', 'state')).toEqual([])
  })
})
