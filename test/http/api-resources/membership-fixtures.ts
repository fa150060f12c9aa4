import type { Db } from '../../../src/storage/schema.js'
import type { SubscriptionTable } from '../../../src/storage/tables/memberships.js'
import type { TestServer } from '../../support/server.js'

export const DAY = 86_400_000
const dbOf = (server: TestServer): Db => server.deps.database.db

/** Students inserted directly, `stu_<tag>_<n>` for n = 1 … count. */
export async function insertStudents(server: TestServer, tag: string, count: number) {
  const now = Date.now()
  const ids: string[] = []
  for (let n = 1; n <= count; n += 1) {
    const id = `stu_${tag}_${n}`
    ids.push(id)
    await dbOf(server)
      .insertInto('students')
      .values({
        id,
        email: `${tag}.${n}@example.com`,
        name: `Student ${tag} ${n}`,
        user_id: null,
        phone: null,
        locale: 'en',
        timezone: null,
        status: 'active',
        tags: '[]',
        marketing_opt_in: 0,
        source: 'api',
        notes: null,
        created_at: now,
        updated_at: now,
      })
      .execute()
  }
  return ids
}

/** A paid (checkout) subscription inserted directly, as checkout would make it. */
export async function insertSubscription(
  server: TestServer,
  values: Pick<SubscriptionTable, 'id' | 'student_id' | 'plan_id' | 'price_id'> &
    Partial<SubscriptionTable>,
): Promise<string> {
  const now = Date.now()
  await dbOf(server)
    .insertInto('subscriptions')
    .values({
      status: 'active',
      amount: 1900,
      currency: 'USD',
      interval: 'month',
      interval_count: 1,
      source: 'checkout',
      started_at: now - 10 * DAY,
      trial_ends_at: null,
      current_period_start: now - 10 * DAY,
      current_period_end: now + 20 * DAY,
      cancel_at_period_end: 0,
      canceled_at: null,
      cancellation_reason: null,
      ended_at: null,
      latest_order_id: null,
      created_at: now - 10 * DAY,
      updated_at: now - 10 * DAY,
      ...values,
    })
    .execute()
  return values.id
}
