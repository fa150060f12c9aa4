/**
 * Which orders count. One list for every screen (analytics, plan, product and coupon stats).
 */

/**
 * Orders whose money was taken: their `total` is revenue, counted on `paid_at`. A refunded
 * order still counts (its refunds subtract separately, on their own dates). `free`, `pending`,
 * `failed` and `expired` orders never are revenue.
 */
export const REVENUE_STATUSES = ['paid', 'partially_refunded', 'refunded'] as const

/**
 * Orders that redeemed what they bought (a coupon use, a sale of a digital product): the
 * revenue orders and the `free` ones (a 100 % coupon, a free lead magnet).
 */
export const REDEEMED_STATUSES = [...REVENUE_STATUSES, 'free'] as const

export function isRevenueStatus(status: string): boolean {
  return (REVENUE_STATUSES as readonly string[]).includes(status)
}

export function isRedeemedStatus(status: string): boolean {
  return (REDEEMED_STATUSES as readonly string[]).includes(status)
}
