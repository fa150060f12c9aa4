import { describe, expect, it } from 'vitest'
import type { AuthorizationParams } from '../check-request.js'
import { signInIsFresh } from './sign-in-freshness.js'

const NOW = 1_800_000_000_000
const params = (
  prompt: AuthorizationParams['prompt'] = [],
  maxAge?: number,
): Pick<AuthorizationParams, 'prompt' | 'maxAge'> => ({ prompt, maxAge })

describe('signInIsFresh: OpenID Connect Core 1.0 §3.1.2.1, prompt and max_age', () => {
  it('without prompt=login or max_age, any sign-in will do, however old', () => {
    expect(signInIsFresh({ authTime: NOW - 86_400_000, now: NOW }, params())).toBe(true)
    expect(signInIsFresh({ authTime: NOW - 86_400_000, now: NOW }, params(['consent']))).toBe(true)
  })

  it('prompt=login: "the Authorization Server SHOULD prompt the End-User for reauthentication", even after a sign-in this very millisecond', () => {
    expect(signInIsFresh({ authTime: NOW, now: NOW }, params(['login']))).toBe(false)
    expect(signInIsFresh({ authTime: NOW - 5_000, now: NOW }, params(['login', 'consent']))).toBe(
      false,
    )
  })

  it('prompt=login is satisfied by the sign-in made for this very request, however long the person then took', () => {
    const requestCreatedAt = NOW - 600_000
    expect(
      signInIsFresh({ authTime: requestCreatedAt, now: NOW, requestCreatedAt }, params(['login'])),
    ).toBe(true)
    expect(
      signInIsFresh({ authTime: NOW - 1_000, now: NOW, requestCreatedAt }, params(['login'])),
    ).toBe(true)
    // A sign-in made before the request arrived is not one made for it.
    expect(
      signInIsFresh(
        { authTime: requestCreatedAt - 1, now: NOW, requestCreatedAt },
        params(['login']),
      ),
    ).toBe(false)
  })

  it('max_age: "If the elapsed time is greater than this value, the OP MUST attempt to actively re-authenticate the End-User"', () => {
    expect(signInIsFresh({ authTime: NOW - 60_001, now: NOW }, params([], 60))).toBe(false)
    expect(signInIsFresh({ authTime: NOW - 120_000, now: NOW }, params([], 60))).toBe(false)
  })

  it('max_age: a sign-in exactly max_age seconds old is recent enough (auth_time + max_age >= now)', () => {
    expect(signInIsFresh({ authTime: NOW - 60_000, now: NOW }, params([], 60))).toBe(true)
    expect(signInIsFresh({ authTime: NOW - 1, now: NOW }, params([], 60))).toBe(true)
  })

  it('max_age=0: "max_age=0 is equivalent to prompt=login", even for a sign-in this very millisecond', () => {
    expect(signInIsFresh({ authTime: NOW, now: NOW }, params([], 0))).toBe(false)
    expect(signInIsFresh({ authTime: NOW - 1_000, now: NOW }, params([], 0))).toBe(false)
  })

  it('max_age, and max_age=0, are satisfied by the sign-in made for this very request, even when it took longer than max_age', () => {
    const requestCreatedAt = NOW - 6_000
    expect(
      signInIsFresh({ authTime: NOW - 5_000, now: NOW, requestCreatedAt }, params([], 0)),
    ).toBe(true)
    expect(
      signInIsFresh({ authTime: requestCreatedAt, now: NOW, requestCreatedAt }, params([], 5)),
    ).toBe(true)
    expect(
      signInIsFresh({ authTime: requestCreatedAt - 1, now: NOW, requestCreatedAt }, params([], 5)),
    ).toBe(false)
  })

  it('a request just arriving has no sign-in made for it: only the age counts', () => {
    expect(signInIsFresh({ authTime: NOW, now: NOW }, params(['login']))).toBe(false)
    expect(
      signInIsFresh({ authTime: NOW, now: NOW, requestCreatedAt: undefined }, params([], 0)),
    ).toBe(false)
  })
})
