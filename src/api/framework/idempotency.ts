import { createHash } from 'node:crypto'
import type { Db } from '../../storage/schema.js'
import { ProblemError } from '../problem.js'

/** How long a key is remembered (DOMAIN.md §4.0: 24 h). */
const KEY_LIFETIME_MS = 24 * 60 * 60 * 1000

/** An answer as the key remembers it. */
export interface StoredAnswer {
  readonly status: number
  readonly body: unknown
  readonly location?: string
}

const digestOf = (text: string) => createHash('sha256').update(text).digest('base64url')

/**
 * Runs a POST at most once per Idempotency-Key. The key is scoped to the caller (person and
 * client) and the path; its row is claimed before the work starts, so two instances or two
 * concurrent requests cannot both run it: the second sees the claim (409 while in flight,
 * the first answer once done). The same key with another body is 422
 * `idempotency_key_reused`. A failed run releases the key so the client may retry.
 */
export async function withIdempotency(
  db: Db,
  input: {
    readonly key: string | undefined
    readonly scope: string
    readonly body: unknown
    readonly now: number
  },
  run: () => Promise<StoredAnswer>,
): Promise<StoredAnswer & { readonly replayed: boolean }> {
  if (input.key === undefined) return { ...(await run()), replayed: false }
  if (input.key.length === 0 || input.key.length > 255)
    throw new ProblemError(400, {
      code: 'invalid_request',
      title: 'Bad Request',
      detail: 'Idempotency-Key must be 1 to 255 characters',
    })
  const keyDigest = digestOf(`${input.scope}\n${input.key}`)
  const requestDigest = digestOf(JSON.stringify(input.body ?? null))
  await db
    .deleteFrom('idempotency_keys')
    .where('key_digest', '=', keyDigest)
    .where('created_at', '<', input.now - KEY_LIFETIME_MS)
    .execute()
  const claimed = await db
    .insertInto('idempotency_keys')
    .values({
      key_digest: keyDigest,
      request_digest: requestDigest,
      status: null,
      body: null,
      location: null,
      created_at: input.now,
    })
    .onConflict((oc) => oc.column('key_digest').doNothing())
    .executeTakeFirst()
  if (Number(claimed.numInsertedOrUpdatedRows ?? 0) === 0) {
    const existing = await db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('key_digest', '=', keyDigest)
      .executeTakeFirstOrThrow()
    if (existing.request_digest !== requestDigest)
      throw new ProblemError(422, {
        code: 'idempotency_key_reused',
        title: 'Unprocessable Content',
        detail: 'this Idempotency-Key was used with a different request body; use a new key',
      })
    if (existing.status === null)
      throw new ProblemError(409, {
        code: 'conflict',
        title: 'Conflict',
        detail: 'a request with this Idempotency-Key is still in progress; retry shortly',
      })
    return {
      status: existing.status,
      body: JSON.parse(existing.body ?? 'null'),
      ...(existing.location !== null && { location: existing.location }),
      replayed: true,
    }
  }
  let answer: StoredAnswer
  try {
    answer = await run()
  } catch (error) {
    await db.deleteFrom('idempotency_keys').where('key_digest', '=', keyDigest).execute()
    throw error
  }
  await db
    .updateTable('idempotency_keys')
    .set({
      status: answer.status,
      body: JSON.stringify(answer.body),
      location: answer.location ?? null,
    })
    .where('key_digest', '=', keyDigest)
    .execute()
  return { ...answer, replayed: false }
}
