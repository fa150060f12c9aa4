import { describe, expect, it } from 'vitest'
import { demandsConsent, forbidsInteraction, withoutInteraction } from './prompt.js'

describe('prompt (OpenID Connect Core 1.0 §3.1.2.1)', () => {
  it('prompt=none: "The Authorization Server MUST NOT display any authentication or consent user interface pages"', () => {
    expect(forbidsInteraction(['none'])).toBe(true)
    expect(forbidsInteraction(['login', 'consent'])).toBe(false)
    expect(forbidsInteraction([])).toBe(false)
  })

  it('prompt=consent: "The Authorization Server SHOULD prompt the End-User for consent"', () => {
    expect(demandsConsent(['consent'])).toBe(true)
    expect(demandsConsent(['login', 'consent'])).toBe(true)
    expect(demandsConsent(['login'])).toBe(false)
  })

  it('prompt=none: "An error is returned if an End-User is not already authenticated": login_required', () => {
    expect(withoutInteraction(false, ['openid'])).toMatchObject({
      kind: 'refuse',
      error: 'login_required',
    })
  })

  it('prompt=none: "or the Client does not have pre-configured consent for the requested Claims": consent_required', () => {
    expect(withoutInteraction(true, undefined)).toMatchObject({
      kind: 'refuse',
      error: 'consent_required',
    })
  })

  it('prompt=none with a fresh sign-in and remembered consent: a code for the remembered scopes', () => {
    expect(withoutInteraction(true, ['openid'])).toEqual({ kind: 'approve', scopes: ['openid'] })
  })
})
