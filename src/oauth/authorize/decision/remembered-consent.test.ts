import { describe, expect, it } from 'vitest'
import { rememberedScopes, remembersConsent } from './remembered-consent.js'

const integration = { kind: 'integration' } as const
const request = { scopes: ['openid', 'courses:read'], resource: 'https://school.example/api' }
const consent = { scope: 'openid courses:read courses:write', resource: request.resource }

describe('rememberedScopes: consent given before, reused without asking', () => {
  it("reuses an integration's consent that covers every requested scope for the same resource", () => {
    expect(rememberedScopes(integration, 'owner', request, consent)).toEqual([
      'openid',
      'courses:read',
    ])
  })

  it('never remembers for a self-registered tool or a client id metadata document', () => {
    expect(remembersConsent({ kind: 'self_registered' })).toBe(false)
    expect(remembersConsent({ kind: 'metadata_document' })).toBe(false)
    expect(rememberedScopes({ kind: 'self_registered' }, 'owner', request, consent)).toBeUndefined()
  })

  it('asks again without consent, for another resource, or for a scope not approved before', () => {
    expect(rememberedScopes(integration, 'owner', request, undefined)).toBeUndefined()
    expect(
      rememberedScopes(integration, 'owner', request, {
        ...consent,
        resource: 'https://x.example',
      }),
    ).toBeUndefined()
    expect(
      rememberedScopes(integration, 'owner', { ...request, scopes: ['openid', 'email'] }, consent),
    ).toBeUndefined()
  })

  it('asks again when the role no longer allows every requested scope', () => {
    expect(rememberedScopes(integration, 'student', request, consent)).toBeUndefined()
  })
})
