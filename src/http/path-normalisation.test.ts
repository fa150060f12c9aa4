import { describe, expect, it } from 'vitest'
import { normalisePath } from './path-normalisation.js'

describe('normalisePath: RFC 3986 §6.2.2.2, unreserved escapes decoded before routing', () => {
  it.each([
    ['/%6cogin', '/login'],
    ['/%6C%6F%67%69%6E', '/login'],
    ['/oauth/%61uthorize?state=%6c', '/oauth/authorize?state=%6c'],
    ['/a%2Db%2ec%5Fd%7Ee%30', '/a-b.c_d~e0'],
    ['/%41%5A%61%7A%30%39', '/AZaz09'],
  ])('%s is %s (the query string untouched)', (url, expected) => {
    expect(normalisePath(url)).toBe(expected)
  })

  it.each([
    '/oauth%2Fauthorize',
    '/login%3F',
    '/a%20b',
    '/%C3%A9',
    '/a%zz',
    '/%',
    '/plain',
    '/x%25',
  ])('leaves reserved, non-ASCII and malformed escapes as sent: %s', (url) => {
    expect(normalisePath(url)).toBe(url)
  })

  it('decodes once: an escaped percent stays escaped', () => {
    expect(normalisePath('/cb%25%36%63')).toBe('/cb%256c')
  })
})
