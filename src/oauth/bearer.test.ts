import { describe, expect, it } from 'vitest'
import type { LiveAccessToken } from '../storage/live-access-tokens.js'
import { grantedScopes } from './bearer.js'

const live = (scope: string) => ({ token: { scope } }) as unknown as LiveAccessToken

describe('grantedScopes: one set per scope string, shared by the tokens that hold it', () => {
  it('holds the words of the scope string', () => {
    expect([...grantedScopes(live('account:read courses:read'))]).toEqual([
      'account:read',
      'courses:read',
    ])
  })

  it('gives two tokens of the same scope string the same set, another string its own', () => {
    const first = grantedScopes(live('account:read events:read'))
    expect(grantedScopes(live('account:read events:read'))).toBe(first)
    const other = grantedScopes(live('account:read'))
    expect(other).not.toBe(first)
    expect([...other]).toEqual(['account:read'])
  })
})
