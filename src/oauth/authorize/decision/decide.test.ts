import { describe, expect, it } from 'vitest'
import type { Role } from '../../roles.js'
import type { AuthorizationParams } from '../check-request.js'
import { type DecisionInput, decideAuthorization } from './decide.js'

const NOW = 1_800_000_000_000
const RESOURCE = 'https://school.example/api'
const PARAMS: AuthorizationParams = {
  clientId: 'pci_tool',
  redirectUri: 'https://tool.example/callback',
  scopes: ['openid', 'courses:read'],
  state: undefined,
  nonce: undefined,
  codeChallenge: 'c'.repeat(43),
  resource: RESOURCE,
  prompt: [],
  maxAge: undefined,
  loginHint: undefined,
}
const CONSENT = { scope: 'openid courses:read', resource: RESOURCE }

/** A request from a browser signed in a minute ago as an owner, to an integration. */
function input(
  change: Partial<Omit<DecisionInput, 'params'>> & {
    params?: Partial<AuthorizationParams>
    authTime?: number
    role?: Role
  } = {},
): DecisionInput {
  const { params, authTime = NOW - 60_000, role = 'owner', ...rest } = change
  return {
    params: { ...PARAMS, ...params },
    client: { kind: 'integration' },
    session: { authTime, user: { role } },
    consent: undefined,
    now: NOW,
    ...rest,
  }
}

describe('decideAuthorization: OpenID Connect Core 1.0 §3.1.2.1 to §3.1.2.4', () => {
  it('sends a person who is not signed in to sign in ("the Authorization Server MUST attempt to Authenticate the End-User")', () => {
    expect(decideAuthorization(input({ session: undefined }))).toEqual({ kind: 'login' })
    expect(
      decideAuthorization(input({ session: undefined, params: { prompt: ['consent'] } })),
    ).toEqual({ kind: 'login' })
  })

  it('shows a signed-in person the consent page when nothing was approved before', () => {
    expect(decideAuthorization(input())).toEqual({ kind: 'consent' })
  })

  it('issues a code at once for consent remembered for every requested scope', () => {
    expect(decideAuthorization(input({ consent: CONSENT }))).toEqual({
      kind: 'approve',
      scopes: ['openid', 'courses:read'],
    })
  })

  it("asks a self-registered tool's person every time, remembered consent or not (RFC 8252 §8.6)", () => {
    expect(
      decideAuthorization(input({ client: { kind: 'self_registered' }, consent: CONSENT })),
    ).toEqual({ kind: 'consent' })
  })

  it('asks again when the role no longer allows a remembered scope', () => {
    expect(decideAuthorization(input({ role: 'student', consent: CONSENT }))).toEqual({
      kind: 'consent',
    })
  })

  it('prompt=consent: "SHOULD prompt the End-User for consent before returning information to the Client", remembered or not', () => {
    expect(
      decideAuthorization(input({ consent: CONSENT, params: { prompt: ['consent'] } })),
    ).toEqual({ kind: 'consent' })
  })

  it('prompt=login: "SHOULD prompt the End-User for reauthentication", remembered consent or not', () => {
    expect(decideAuthorization(input({ consent: CONSENT, params: { prompt: ['login'] } }))).toEqual(
      { kind: 'login' },
    )
  })

  it('prompt=login continued after the sign-in made for this request: consent page, or a code when remembered', () => {
    const continued = { authTime: NOW - 1_000, requestCreatedAt: NOW - 2_000 }
    expect(decideAuthorization(input({ ...continued, params: { prompt: ['login'] } }))).toEqual({
      kind: 'consent',
    })
    expect(
      decideAuthorization(input({ ...continued, consent: CONSENT, params: { prompt: ['login'] } })),
    ).toEqual({ kind: 'approve', scopes: ['openid', 'courses:read'] })
  })

  it('prompt=login continued with the sign-in from before the request: sign in again', () => {
    expect(
      decideAuthorization(
        input({
          authTime: NOW - 3_000,
          requestCreatedAt: NOW - 2_000,
          params: { prompt: ['login'] },
        }),
      ),
    ).toEqual({ kind: 'login' })
  })

  it('max_age: "If the elapsed time is greater than this value, the OP MUST attempt to actively re-authenticate"', () => {
    expect(decideAuthorization(input({ params: { maxAge: 59 } }))).toEqual({ kind: 'login' })
    expect(decideAuthorization(input({ params: { maxAge: 60 } }))).toEqual({ kind: 'consent' })
  })

  it('max_age=0 "is equivalent to prompt=login", even for a sign-in this very millisecond', () => {
    expect(decideAuthorization(input({ authTime: NOW, params: { maxAge: 0 } }))).toEqual({
      kind: 'login',
    })
  })

  it('prompt=none without a sign-in, or with one older than max_age: login_required, never a page', () => {
    const none = { prompt: ['none'] as const }
    expect(
      decideAuthorization(input({ session: undefined, consent: CONSENT, params: none })),
    ).toMatchObject({ kind: 'refuse', error: 'login_required' })
    expect(
      decideAuthorization(input({ consent: CONSENT, params: { ...none, maxAge: 30 } })),
    ).toMatchObject({ kind: 'refuse', error: 'login_required' })
    expect(
      decideAuthorization(
        input({ authTime: NOW, consent: CONSENT, params: { ...none, maxAge: 0 } }),
      ),
    ).toMatchObject({ kind: 'refuse', error: 'login_required' })
  })

  it('prompt=none signed in but without remembered consent: consent_required', () => {
    expect(decideAuthorization(input({ params: { prompt: ['none'] } }))).toMatchObject({
      kind: 'refuse',
      error: 'consent_required',
    })
    expect(
      decideAuthorization(
        input({
          client: { kind: 'self_registered' },
          consent: CONSENT,
          params: { prompt: ['none'] },
        }),
      ),
    ).toMatchObject({ kind: 'refuse', error: 'consent_required' })
  })

  it('prompt=none signed in with remembered consent: a code, and auth_time within max_age', () => {
    expect(
      decideAuthorization(input({ consent: CONSENT, params: { prompt: ['none'], maxAge: 60 } })),
    ).toEqual({ kind: 'approve', scopes: ['openid', 'courses:read'] })
  })
})
