import type { SubscriptionTable } from '../../../storage/tables/memberships.js'

/** A subscription; days are from now. Paid ones name their latest order (orders.ts). */
export interface DemoSubscription {
  readonly id: string
  readonly student: number
  readonly price: string
  readonly status: SubscriptionTable['status']
  /** A comp grant: costs nothing and does not renew. Otherwise bought at checkout. */
  readonly source?: 'manual'
  readonly started: number
  readonly trialEnds?: number
  /** The current (or last) period: start and end (null: a lifetime subscription). */
  readonly period: readonly [number, number | null]
  readonly canceled?: { readonly day: number; readonly reason: string }
  readonly ended?: number
  readonly latestOrder?: number
}

/**
 * Studio Pass subscriptions in every state: two monthly (one kept the old $15 price), two
 * yearly, one in trial, one whose 7-day trial ended three days ago with no payment yet (still
 * marked trialing: it counts neither as active nor as trialing), one past due (the renewal
 * at the start of its period failed), one cancelling at period end, one expired (its renewal
 * failed a week ago); a Founders Lifetime holder; a comp grant.
 */
export const SUBSCRIPTIONS: readonly DemoSubscription[] = [
  {
    id: 'sub_demo_monthly_legacy',
    student: 1,
    price: 'mpp_demo_studio_monthly_legacy',
    status: 'active',
    started: -85,
    period: [-24, 6],
    latestOrder: 1042,
  },
  {
    id: 'sub_demo_monthly',
    student: 11,
    price: 'mpp_demo_studio_monthly',
    status: 'active',
    started: -40,
    trialEnds: -33,
    period: [-2, 28],
    latestOrder: 1064,
  },
  {
    id: 'sub_demo_yearly_1',
    student: 2,
    price: 'mpp_demo_studio_yearly',
    status: 'active',
    started: -60,
    period: [-60, 305],
    latestOrder: 1008,
  },
  {
    id: 'sub_demo_yearly_2',
    student: 13,
    price: 'mpp_demo_studio_yearly',
    status: 'active',
    started: -20,
    period: [-20, 345],
    latestOrder: 1047,
  },
  {
    id: 'sub_demo_trialing',
    student: 21,
    price: 'mpp_demo_studio_monthly',
    status: 'trialing',
    started: -3,
    trialEnds: 4,
    period: [-3, 4],
  },
  {
    id: 'sub_demo_trial_lapsed',
    student: 23,
    price: 'mpp_demo_studio_monthly',
    status: 'trialing',
    started: -10,
    trialEnds: -3,
    period: [-10, -3],
  },
  {
    id: 'sub_demo_past_due',
    student: 15,
    price: 'mpp_demo_studio_monthly',
    status: 'past_due',
    started: -43,
    trialEnds: -36,
    period: [-5, 25],
    latestOrder: 1062,
  },
  {
    id: 'sub_demo_cancelling',
    student: 17,
    price: 'mpp_demo_studio_monthly',
    status: 'active',
    started: -44,
    trialEnds: -37,
    period: [-6, 24],
    canceled: { day: -2, reason: 'Taking a break over the summer' },
    latestOrder: 1060,
  },
  {
    id: 'sub_demo_expired',
    student: 6,
    price: 'mpp_demo_studio_monthly_legacy',
    status: 'expired',
    started: -75,
    period: [-45, -14],
    ended: -7,
    latestOrder: 1055,
  },
  {
    id: 'sub_demo_founder',
    student: 4,
    price: 'mpp_demo_founders_lifetime',
    status: 'active',
    started: -70,
    period: [-70, null],
    latestOrder: 1006,
  },
  {
    id: 'sub_demo_comp',
    student: 10,
    price: 'mpp_demo_studio_monthly',
    status: 'active',
    source: 'manual',
    started: -25,
    period: [-25, 65],
  },
]
