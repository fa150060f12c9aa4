import { describe, expect, it } from 'vitest'
import { OAuthError } from '../oauth/errors.js'
import { parseStrictJson } from './json-body.js'

function refusal(text: string): OAuthError {
  try {
    parseStrictJson(text)
  } catch (error) {
    if (error instanceof OAuthError) return error
    throw error
  }
  throw new Error(`accepted ${text}`)
}

describe('parseStrictJson: a syntax error, a duplicate key or a prototype key is refused', () => {
  it('parses a well-formed object', () => {
    expect(parseStrictJson('{"a":1,"b":[1,{"c":"d"}],"e":null}')).toEqual({
      a: 1,
      b: [1, { c: 'd' }],
      e: null,
    })
  })

  it('parses values that are not objects; the caller judges their shape', () => {
    expect(parseStrictJson('[1,2]')).toEqual([1, 2])
    expect(parseStrictJson('"text"')).toBe('text')
    expect(parseStrictJson('null')).toBeNull()
    expect(parseStrictJson(' 42 ')).toBe(42)
  })

  it.each([
    ['empty text', ''],
    ['truncated', '{"a":'],
    ['single quotes', "{'a':1}"],
    ['trailing comma', '{"a":1,}'],
    ['unquoted key', '{a:1}'],
    ['two values', '{} {}'],
    ['NaN', '{"a":NaN}'],
  ])('refuses invalid JSON: %s', (_label, text) => {
    const error = refusal(text)
    expect(error.error).toBe('invalid_request')
    expect(error.description).toBe('the request body is not valid JSON')
  })

  it.each([
    ['top level', '{"a":1,"a":2}'],
    ['top level, same value', '{"a":1,"a":1}'],
    ['nested object', '{"x":{"a":1,"a":2}}'],
    ['object inside an array', '{"x":[{"a":1},{"b":1,"b":2}]}'],
    ['deeply nested', '[[[{"k":{"k":{"a":true,"a":false}}}]]]'],
    ['with whitespace before the colon', '{"a" : 1, "a"\n:\t2}'],
    ['spelled with an escape', '{"a":1,"\\u0061":2}'],
    ['after a closed sibling object', '{"x":{"a":1},"y":2,"x":3}'],
  ])('refuses a key given twice in one object: %s', (_label, text) => {
    const error = refusal(text)
    expect(error.error).toBe('invalid_request')
    expect(error.description).toMatch(/appears twice in one object/)
  })

  it('allows the same key in different objects', () => {
    expect(parseStrictJson('{"a":{"a":1},"b":{"a":2},"c":[{"a":3},{"a":4}]}')).toBeTruthy()
  })

  it.each([
    ['__proto__', '{"__proto__":{"polluted":true}}'],
    ['nested __proto__', '{"x":[{"__proto__":{}}]}'],
    ['escaped __proto__', '{"\\u005f_proto__":{}}'],
    ['constructor', '{"constructor":{"prototype":{}}}'],
    ['prototype', '{"x":{"prototype":1}}'],
  ])('refuses a prototype-polluting key: %s', (_label, text) => {
    const error = refusal(text)
    expect(error.error).toBe('invalid_request')
    expect(error.description).toMatch(/is not allowed/)
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it('does not mistake key-like text inside string values for keys', () => {
    expect(parseStrictJson('{"a":"\\"a\\":1","b":"{\\"b\\":2,\\"b\\":3}"}')).toEqual({
      a: '"a":1',
      b: '{"b":2,"b":3}',
    })
    expect(parseStrictJson('{"a":"__proto__","b":["__proto__","constructor"]}')).toBeTruthy()
    expect(parseStrictJson('{"a":"x : y","c":"a"}')).toBeTruthy()
  })

  it('handles escaped backslashes and quotes at the end of strings', () => {
    expect(parseStrictJson('{"a\\\\":1,"a":2,"b":"\\\\","c":"\\\\\\""}')).toEqual({
      'a\\': 1,
      a: 2,
      b: '\\',
      c: '\\"',
    })
    expect(refusal('{"a\\\\":1,"a\\\\":2}').description).toMatch(/twice/)
  })

  it('handles brackets and braces inside strings without losing track of objects', () => {
    expect(parseStrictJson('{"a":"}]","b":"{[","c":{"a":1}}')).toBeTruthy()
    expect(refusal('{"a":"}","a":2}').description).toMatch(/twice/)
  })

  it('treats strings inside arrays as values, not keys', () => {
    expect(parseStrictJson('{"a":["x","x"],"b":[["x"],"x"]}')).toBeTruthy()
  })
})
