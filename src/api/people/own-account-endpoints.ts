import type { AppDeps } from '../../app-deps.js'
import { createUserStore, type ProfileChanges, type User } from '../../storage/users.js'
import { changesOf } from '../activity/changes.js'
import { recordChange } from '../activity/record.js'
import { checkIfMatch, etagOf } from '../conventions.js'
import { defineEndpoint, jsonAnswer } from '../framework/endpoint.js'
import type { Endpoint, OperationResult } from '../framework/operation.js'
import { keptEtag, ViewMemo } from '../framework/view-memo.js'
import { ProblemError } from '../problem.js'
import { ACCOUNT_CHANGES, accountFacts, accountSchema, accountView } from './own-account.js'

/** One memo of account answers an app (some 100 people's), see {@link accountAnswer}. */
const accounts = new WeakMap<AppDeps, ViewMemo>()

/**
 * GET /api/v1/account's answer: the person as the bearer check read them, serialised once
 * while what the view shows of them stays the same (ViewMemo, as a record's answer is).
 */
function accountAnswer(deps: AppDeps, user: User): OperationResult {
  let memo = accounts.get(deps)
  if (!memo) {
    memo = new ViewMemo(64_000)
    accounts.set(deps, memo)
  }
  const view = memo.answer(user.id, accountFacts(user), () => ({
    json: JSON.stringify(accountView(user)),
    keep: true,
  }))
  return {
    status: 200,
    json: view.json,
    etag: keptEtag(view),
    headers: { 'cache-control': 'no-store' },
  }
}

/** The signed-in person's own profile (DOMAIN.md §4.3.20): read it, change it. */
export const accountEndpoints: readonly Endpoint[] = [
  defineEndpoint({
    name: 'account.get',
    method: 'GET',
    path: '/api/v1/account',
    operationId: 'getAccount',
    summary: 'The signed-in person’s own profile',
    tags: ['account'],
    scope: 'account:read',
    output: { description: 'The account', schema: accountSchema, etag: true },
    problems: { '401': 'No token, or an invalid one', '403': 'The token lacks account:read' },
    run: async ({ deps, caller }) => accountAnswer(deps, caller.user),
  }),
  defineEndpoint({
    name: 'account.update',
    method: 'PATCH',
    path: '/api/v1/account',
    operationId: 'updateAccount',
    summary: 'Update one’s own profile (JSON merge; null clears a field)',
    tags: ['account'],
    scope: 'account:write',
    ifMatch: true,
    body: ACCOUNT_CHANGES,
    output: { description: 'The updated account', schema: accountSchema },
    problems: {
      '400': 'Malformed body',
      '401': 'No token, or an invalid one',
      '403': 'The token lacks account:write',
      '412': 'If-Match does not match',
      '415': 'The body is not application/json',
      '422': 'Validation failed; errors lists each field',
    },
    async run({ deps, caller, body, input, now, operation }) {
      checkIfMatch(input.ifMatch, etagOf(accountView(caller.user)))
      const preferences = body.notification_preferences as Record<string, boolean> | undefined
      const changes: ProfileChanges = {
        ...(body.name !== undefined && { name: body.name as string }),
        ...(body.avatar_url !== undefined && { avatarUrl: body.avatar_url as string | null }),
        ...(body.locale !== undefined && { locale: body.locale as string | null }),
        ...(body.timezone !== undefined && { timezone: body.timezone as string | null }),
        ...(body.bio !== undefined && { bio: body.bio as string | null }),
        ...(preferences && {
          notificationPreferences: { ...caller.user.notificationPreferences, ...preferences },
        }),
      }
      // The change and its activity record in one transaction.
      const updated = await deps.database.db.transaction().execute(async (trx) => {
        const after = await createUserStore(trx).updateProfile(caller.user.id, changes, now)
        const changed = after
          ? changesOf(ACCOUNT_CHANGES, accountView(caller.user), accountView(after))
          : []
        // A PATCH that changed nothing is no change to record (as for every record).
        if (changed.length > 0)
          await recordChange(
            { deps, db: trx, caller, now },
            { operation, recordType: 'account', recordId: caller.user.id, changes: changed },
          )
        return after
      })
      if (!updated)
        throw new ProblemError(404, {
          code: 'not_found',
          title: 'Not Found',
          detail: 'the account no longer exists',
        })
      const view = accountView(updated)
      return jsonAnswer(view, { etag: true })
    },
  }),
]
