import { type BearerDeps, bearerChallenge, type Companion, checkBearer } from '../oauth/bearer.js'
import { roleAllows } from '../oauth/roles.js'
import { keptInMemory, type LiveAccessToken } from '../storage/live-access-tokens.js'
import type { User } from '../storage/users.js'
import { ProblemError } from './problem.js'

/** Who is calling the business API. */
export type Caller =
  | { readonly kind: 'anonymous' }
  | {
      readonly kind: 'token'
      readonly user: User
      readonly clientId: string
      readonly grantId: string
      /** Granted scopes ∩ what the person's role allows today (a demotion bites at once). */
      readonly scopes: ReadonlySet<string>
      /**
       * False for a caller Portico makes up for itself (the demo loader acting as the owner):
       * its writes are no app's, and the activity record leaves them out.
       */
      readonly recorded?: false
      /**
       * The approval this call runs under, when it needed a yes (issue 35): recorded with
       * the change it makes (src/api/approvals/confirmations.ts sets it).
       */
      readonly approval?: ApprovalOfCall
    }

/** Who said yes to a held call, and when. */
export interface ApprovalOfCall {
  readonly id: string
  readonly approvedBy: string
  readonly approvedAt: number
}

/** A protected resource other than the API (the MCP endpoint): its identifier and metadata. */
export interface ProtectedResource {
  /** The audience its tokens carry (RFC 8707). */
  readonly identifier: string
  /** Its protected resource metadata URL, named in challenges (RFC 9728 §5.1). */
  readonly metadata: string
}

/** A caller with a valid token. */
export type TokenCaller = Extract<Caller, { kind: 'token' }>

/**
 * Decides who is calling from the Authorization header alone. No header: anonymous. A
 * malformed, unknown, expired, revoked or foreign-audience token: 401 `invalid_token`,
 * never a downgrade to anonymous. The audience is the API (the issuer) unless `resource`
 * names another of Portico's protected resources. A `companion` read, the one the call
 * goes on to make, is made in the same statement as the token's where it can (bearer.ts).
 */
export async function identifyCaller(
  authorization: string | undefined,
  deps: BearerDeps,
  issuer: string,
  resource?: ProtectedResource,
  companion?: Companion<object>,
): Promise<Caller> {
  const check = await checkBearer(deps, authorization, resource?.identifier ?? issuer, companion)
  if (check.status === 'anonymous') return { kind: 'anonymous' }
  if (check.status === 'invalid') {
    throw new ProblemError(
      401,
      {
        code: 'invalid_token',
        error: 'invalid_token',
        title: 'Unauthorized',
        detail: check.description,
      },
      {
        'www-authenticate': bearerChallenge(issuer, {
          error: 'invalid_token',
          description: check.description,
          ...(resource && { resourceMetadata: resource.metadata }),
        }),
      },
    )
  }
  const kept = keptCallers.get(check.live)
  if (kept) return kept
  const { user, token } = check.live
  const scopes = effectiveScopes(check.scopes, user.role)
  const caller: TokenCaller = Object.freeze({
    kind: 'token',
    user,
    clientId: token.client_id,
    grantId: token.grant_id,
    scopes,
  })
  if (keptInMemory(check.live)) keptCallers.set(check.live, caller)
  return caller
}

/**
 * The callers of the live tokens SQLite keeps in memory (see keptInMemory), made once:
 * a token's scopes and its person's role are in the kept token, and a change to either is a
 * write, after which the token is read anew (a new object, a new caller).
 */
const keptCallers = new WeakMap<LiveAccessToken, TokenCaller>()

/**
 * Granted ∩ what each role allows, by role and granted set: the granted sets are shared by
 * scope string (bearer.ts grantedScopes), so this is made once per role and scope string
 * instead of at every request read from PostgreSQL.
 */
const allowedByRole = new Map<string, WeakMap<ReadonlySet<string>, ReadonlySet<string>>>()

function effectiveScopes(granted: ReadonlySet<string>, role: User['role']): ReadonlySet<string> {
  let byGranted = allowedByRole.get(role)
  if (!byGranted) {
    byGranted = new WeakMap()
    allowedByRole.set(role, byGranted)
  }
  let scopes = byGranted.get(granted)
  if (!scopes) {
    scopes = new Set([...granted].filter((s) => roleAllows(role, s)))
    byGranted.set(granted, scopes)
  }
  return scopes
}

/**
 * Demands `scope`. Anonymous callers get 401 with a bare challenge pointing at the resource
 * metadata (RFC 6750 §3.1: no error code when no credentials were sent); a token without
 * the scope gets 403 `insufficient_scope` naming it.
 */
export function requireScope(
  caller: Caller,
  scope: string,
  issuer: string,
): Extract<Caller, { kind: 'token' }> {
  if (caller.kind === 'anonymous') {
    throw new ProblemError(
      401,
      {
        code: 'unauthenticated',
        title: 'Unauthorized',
        detail: `this operation needs an access token with the ${scope} scope`,
      },
      { 'www-authenticate': bearerChallenge(issuer) },
    )
  }
  if (!caller.scopes.has(scope)) {
    throw new ProblemError(
      403,
      {
        code: 'insufficient_scope',
        error: 'insufficient_scope',
        title: 'Forbidden',
        detail: `this operation needs the ${scope} scope, granted to the token and allowed for your role`,
        required_scopes: [scope],
      },
      { 'www-authenticate': bearerChallenge(issuer, { error: 'insufficient_scope', scope }) },
    )
  }
  return caller
}
