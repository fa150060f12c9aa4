import { describe, expect, it } from 'vitest'
import { shownClientName } from './client-name.js'

describe('a client name stored before the visible-text rule', () => {
  it('is shown as unnamed when it hides a bidi control or a zero-width character', () => {
    expect(shownClientName('My School\u202E')).toBeUndefined()
    expect(shownClientName('Sch\u200Bool')).toBeUndefined()
    expect(shownClientName(undefined)).toBeUndefined()
  })
  it('is shown as given otherwise, emoji variation selectors included', () => {
    expect(shownClientName('Claude Code')).toBe('Claude Code')
    expect(shownClientName('Tool \u2764\uFE0F')).toBe('Tool \u2764\uFE0F')
  })
})
