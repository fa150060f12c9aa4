/**
 * Subscriptions that count, at one instant: one definition of running, active, trialing,
 * paying and of monthly recurring revenue (MRR), for the overview and the plan stats alike.
 *
 * - running: started by then, not `incomplete`, not ended (an `ended_at` after the instant,
 *   or no `ended_at` and status trialing, active or past_due — cancelling at period end is
 *   still running), and not a lapsed trial (status still `trialing` with `trial_ends_at` at
 *   or before the instant: the trial ended and no payment turned it active).
 * - trialing: running and in trial (`trial_ends_at` after the instant).
 * - active: running and out of trial (active, past_due, cancelling at period end, manual
 *   grants included).
 * - paying: active, recurring (an interval), and not a manual grant.
 * - MRR: per currency, the sum of the paying subscriptions' monthly amounts (amount /
 *   interval_count per month; yearly / 12; weekly × 52 / 12; daily × 365 / 12), rounded half
 *   up once per currency at the end.
 */
import { type Money, PerCurrency } from './currencies.js'

export interface MoneySubscription {
  readonly status: string
  readonly amount: number
  readonly currency: string
  readonly interval: string | null
  readonly interval_count: number | null
  readonly source: string
  readonly started_at: number
  readonly trial_ends_at: number | null
  readonly ended_at: number | null
}

/** Statuses of a subscription that has not ended. */
export const RUNNING_STATUSES = ['trialing', 'active', 'past_due'] as const

const inTrialAt = (sub: MoneySubscription, at: number) =>
  sub.trial_ends_at !== null && sub.trial_ends_at > at

export function runningAt(sub: MoneySubscription, at: number): boolean {
  if (sub.status === 'incomplete' || sub.started_at > at) return false
  if (sub.ended_at !== null) return sub.ended_at > at
  if (!(RUNNING_STATUSES as readonly string[]).includes(sub.status)) return false
  return !(sub.status === 'trialing' && !inTrialAt(sub, at))
}

export function trialingAt(sub: MoneySubscription, at: number): boolean {
  return runningAt(sub, at) && inTrialAt(sub, at)
}

export function activeAt(sub: MoneySubscription, at: number): boolean {
  return runningAt(sub, at) && !inTrialAt(sub, at)
}

export function payingAt(sub: MoneySubscription, at: number): boolean {
  return activeAt(sub, at) && sub.interval !== null && sub.source !== 'manual'
}

/** The monthly value of a recurring price, unrounded. */
export function monthlyAmount(sub: MoneySubscription): number {
  const count = sub.interval_count && sub.interval_count > 0 ? sub.interval_count : 1
  switch (sub.interval) {
    case 'month':
      return sub.amount / count
    case 'year':
      return sub.amount / (12 * count)
    default:
      return 0
  }
}

/** MRR at `at`, one Money per listed currency. */
export function mrrAt(
  subs: readonly MoneySubscription[],
  at: number,
  currencies: readonly string[],
): Money[] {
  const exact = new Map<string, number>()
  for (const sub of subs)
    if (payingAt(sub, at))
      exact.set(sub.currency, (exact.get(sub.currency) ?? 0) + monthlyAmount(sub))
  const rounded = new PerCurrency()
  for (const [currency, value] of exact) rounded.add(currency, Math.floor(value + 0.5 + 1e-9))
  return rounded.list(currencies)
}

/** Subscription counts at `at`. */
export function subscriptionCounts(subs: readonly MoneySubscription[], at: number) {
  return {
    active_subscriptions: subs.filter((s) => activeAt(s, at)).length,
    trialing_subscriptions: subs.filter((s) => trialingAt(s, at)).length,
  }
}
