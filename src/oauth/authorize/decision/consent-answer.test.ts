import { describe, expect, it } from 'vitest'
import { answerConsent } from './consent-answer.js'

const params = { scopes: ['openid', 'courses:read', 'courses:write'] }
const integration = { kind: 'integration' } as const

describe("answerConsent: the consent page's form (RFC 6749 §4.1.2.1)", () => {
  it('"If the resource owner denies the access request": access_denied, for anything but approve', () => {
    for (const decision of ['deny', 'APPROVE', undefined, ['approve']]) {
      expect(answerConsent(decision, params, integration, 'owner')).toMatchObject({
        kind: 'refuse',
        error: 'access_denied',
      })
    }
  })

  it('grants what the role allows of the request, and remembers it for an integration only', () => {
    expect(answerConsent('approve', params, integration, 'lecturer')).toEqual({
      kind: 'approve',
      scopes: ['openid', 'courses:read'],
      remember: true,
    })
    expect(answerConsent('approve', params, { kind: 'self_registered' }, 'owner')).toEqual({
      kind: 'approve',
      scopes: params.scopes,
      remember: false,
    })
  })

  it('answers an approval of nothing the role allows with invalid_scope', () => {
    expect(
      answerConsent('approve', { scopes: ['courses:write'] }, integration, 'student'),
    ).toMatchObject({ kind: 'refuse', error: 'invalid_scope' })
  })
})
