import { describe, expect, it } from 'vitest'
import { closestMatch, editDistance } from './did-you-mean.js'

describe('closest match of a mistyped command or option', () => {
  it('counts insertions, deletions, substitutions and swapped neighbours as one edit each', () => {
    expect(editDistance('serve', 'serve')).toBe(0)
    expect(editDistance('serv', 'serve')).toBe(1)
    expect(editDistance('sreve', 'serve')).toBe(1)
    expect(editDistance('porx', 'port')).toBe(1)
    expect(editDistance('', 'abc')).toBe(3)
    expect(editDistance('kitten', 'sitting')).toBe(3)
  })

  it('suggests the nearest candidate within a third of the typed length', () => {
    const commands = ['serve', 'migrate', 'keys list', 'keys rotate', 'users list']
    expect(closestMatch('serv', commands)).toBe('serve')
    expect(closestMatch('migrat', commands)).toBe('migrate')
    expect(closestMatch('keys rotat', commands)).toBe('keys rotate')
    expect(closestMatch('user list', commands)).toBe('users list')
    expect(closestMatch('SERVE', commands)).toBe('serve')
  })

  it('suggests nothing for a word unlike every candidate', () => {
    expect(closestMatch('frobnicate', ['serve', 'migrate'])).toBeUndefined()
    expect(closestMatch('x', ['serve'])).toBeUndefined()
  })
})
