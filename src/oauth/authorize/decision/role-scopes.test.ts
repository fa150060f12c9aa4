import { describe, expect, it } from 'vitest'
import { scopesForRole } from './role-scopes.js'

describe('scopesForRole: what a person may grant (DOMAIN.md §4.1)', () => {
  it('splits the request by the role, keeping its order', () => {
    expect(scopesForRole(['openid', 'courses:write', 'courses:read'], 'lecturer')).toEqual({
      grantable: ['openid', 'courses:read'],
      refused: ['courses:write'],
    })
  })

  it('lets a student grant only what every person may', () => {
    expect(scopesForRole(['courses:read', 'email'], 'student')).toEqual({
      grantable: ['email'],
      refused: ['courses:read'],
    })
    expect(scopesForRole(['courses:write'], 'student').grantable).toEqual([])
  })

  it('lets an owner grant every scope of the catalogue', () => {
    expect(scopesForRole(['courses:write', 'school:read'], 'owner').refused).toEqual([])
  })
})
