import { sql } from 'kysely'
import type { Row } from '../framework/fields.js'
import type { ResourceDb } from '../framework/store.js'
import { REDEEMED_STATUSES } from '../money/statuses.js'

export const COUPON_STATUSES = ['scheduled', 'active', 'expired', 'exhausted', 'disabled'] as const
export type CouponStatus = (typeof COUPON_STATUSES)[number]

/** Orders that redeemed the coupon (free ones included), as a scalar subquery. */
const redemptions = sql<number>`(select count(*) from orders where orders.coupon_id = coupons.id and orders.status in (${sql.join(REDEEMED_STATUSES)}))`

/** The derived status of each coupon, in SQL (the list filter), first matching wins. */
export function statusCondition(status: string, now: number) {
  const scheduled = sql`(starts_at is not null and starts_at > ${now})`
  const expired = sql`(expires_at is not null and expires_at <= ${now})`
  const exhausted = sql`(max_redemptions is not null and ${redemptions} >= max_redemptions)`
  switch (status) {
    case 'disabled':
      return sql<boolean>`enabled = 0`
    case 'scheduled':
      return sql<boolean>`enabled = 1 and ${scheduled}`
    case 'expired':
      return sql<boolean>`enabled = 1 and not ${scheduled} and ${expired}`
    case 'exhausted':
      return sql<boolean>`enabled = 1 and not ${scheduled} and not ${expired} and ${exhausted}`
    default:
      return sql<boolean>`enabled = 1 and not ${scheduled} and not ${expired} and not ${exhausted}`
  }
}

/** The same derivation for one row (its `times_redeemed` loaded by enrich). */
export function couponStatus(row: Row, now: number): CouponStatus {
  const num = (v: unknown) => (v === null || v === undefined ? null : Number(v))
  const startsAt = num(row.starts_at)
  const expiresAt = num(row.expires_at)
  const max = num(row.max_redemptions)
  if (!Number(row.enabled)) return 'disabled'
  if (startsAt !== null && startsAt > now) return 'scheduled'
  if (expiresAt !== null && expiresAt <= now) return 'expired'
  if (max !== null && Number(row.times_redeemed ?? 0) >= max) return 'exhausted'
  return 'active'
}

export async function timesRedeemed(db: ResourceDb, couponId: string): Promise<number> {
  const row = await db
    .selectFrom('orders')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('coupon_id', '=', couponId)
    .where('status', 'in', [...REDEEMED_STATUSES])
    .executeTakeFirst()
  return Number(row?.n ?? 0)
}
