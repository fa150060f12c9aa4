import type { FastifyReply } from 'fastify'
import type { AppDeps } from '../../app-deps.js'
import { type AuthorizationParams, buildRedirect } from '../../oauth/authorize/check-request.js'
import type { Refusal } from '../../oauth/authorize/decision/decision.js'
import { issueCode } from '../../oauth/authorize/issue-code.js'
import type { Client } from '../../storage/clients.js'
import { type CurrentSession, redirect } from '../browser.js'

/** Issues a code for `granted` and sends the browser back to the client with it. */
export async function approve(
  deps: AppDeps,
  reply: FastifyReply,
  client: Client,
  params: AuthorizationParams,
  current: CurrentSession,
  granted: readonly string[],
) {
  const now = deps.clock.now()
  const code = await issueCode(
    {
      grants: deps.grants,
      random: deps.random,
      codeLifetimeMs: deps.config.lifetimes.authorizationCode * 1000,
      refreshLifetimeMs: deps.config.lifetimes.refreshToken * 1000,
      grantMaximumMs: deps.config.lifetimes.grantMaximum * 1000,
    },
    {
      params,
      userId: current.session.user.id,
      grantedScopes: granted,
      authTime: current.session.authTime,
      now,
    },
  )
  await deps.clients.touch(client, now)
  return redirect(
    reply,
    buildRedirect({ redirectUri: params.redirectUri, state: params.state }, deps.config.issuer, {
      code,
    }),
  )
}

/** Sends the browser back to the client with the decision's error, `state` and `iss`. */
export function sendRefusal(
  deps: AppDeps,
  reply: FastifyReply,
  params: Pick<AuthorizationParams, 'redirectUri' | 'state'>,
  refusal: Refusal,
) {
  return redirect(
    reply,
    buildRedirect({ redirectUri: params.redirectUri, state: params.state }, deps.config.issuer, {
      error: refusal.error,
      error_description: refusal.description,
    }),
  )
}
