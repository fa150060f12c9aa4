import type { AppDeps } from '../../app-deps.js'
import type { Db } from '../../storage/schema.js'
import type {
  MembershipPlanPriceTable,
  MembershipPlanTable,
  SubscriptionTable,
} from '../../storage/tables/memberships.js'

const DAY = 86_400_000
const json = (value: unknown) => JSON.stringify(value)

/** `ms` moved by whole calendar months (UTC), the length of a billing period. */
export function addMonths(ms: number, months: number): number {
  const date = new Date(ms)
  date.setUTCMonth(date.getUTCMonth() + months)
  return date.getTime()
}

/** The months in one period of a recurring price. */
const periodMonths = (interval: 'month' | 'year', count = 1) =>
  (interval === 'year' ? 12 : 1) * count

const PLANS: Array<Omit<MembershipPlanTable, 'created_at' | 'updated_at'> & { days: number[] }> = [
  {
    id: 'mpl_demo_studio_pass',
    name: 'Studio Pass',
    slug: 'studio-pass',
    description:
      '<p>Everything you need to keep growing: the editing and astrophotography courses, members-only posts and live events.</p>',
    cover_image_url: null,
    status: 'active',
    visible: 1,
    billing_type: 'recurring',
    includes: json({
      course_ids: ['crs_demo_lightroom_editing_masterclass', 'crs_demo_night_sky_astrophotography'],
      digital_product_ids: ['dpr_demo_lightroom_preset_pack'],
      post_access: true,
      event_access: true,
    }),
    features: json([
      'Lightroom Editing Masterclass and Night Sky & Astrophotography',
      'The Lightroom Preset Pack',
      'Members-only posts and monthly live Q&A',
      'Cancel any time',
    ]),
    faq: json([
      {
        question: 'Can I try it first?',
        answer: 'Yes: the monthly plan starts with a 7-day free trial.',
      },
      {
        question: 'What happens when I cancel?',
        answer: 'You keep access until the end of the period you paid for.',
      },
    ]),
    position: 0,
    // Created, archived (last number: updated) — days ago.
    days: [150, 45],
  },
  {
    id: 'mpl_demo_founders_lifetime',
    name: 'Founders Lifetime',
    slug: 'founders-lifetime',
    description: '<p>One payment, access forever. Offered to our first members only.</p>',
    cover_image_url: null,
    status: 'archived',
    visible: 0,
    billing_type: 'lifetime',
    includes: json({
      course_ids: ['crs_demo_lightroom_editing_masterclass', 'crs_demo_night_sky_astrophotography'],
      digital_product_ids: [],
      post_access: true,
      event_access: true,
    }),
    features: json(['Everything in Studio Pass, forever']),
    faq: json([]),
    position: 1,
    days: [200, 30],
  },
  {
    id: 'mpl_demo_summer_bootcamp',
    name: 'Summer Bootcamp',
    slug: 'summer-bootcamp',
    description: '<p>Sixty days of guided practice with weekly assignments.</p>',
    cover_image_url: null,
    status: 'draft',
    visible: 1,
    billing_type: 'fixed_term',
    includes: json({
      course_ids: ['crs_demo_photography_foundations'],
      digital_product_ids: [],
      post_access: false,
      event_access: true,
    }),
    features: json(['60 days of access', 'Weekly assignments with feedback']),
    faq: json([]),
    position: 2,
    days: [5, 5],
  },
]

type Price = Omit<MembershipPlanPriceTable, 'created_at'> & { daysAgo: number }

const recurring = { access_days: null, ends_on: null }
const PRICES: Price[] = [
  // The price before the change 45 days ago: deactivated, still paid by one subscriber.
  {
    id: 'mpp_demo_studio_monthly_legacy',
    plan_id: 'mpl_demo_studio_pass',
    amount: 1500,
    currency: 'USD',
    interval: 'month',
    interval_count: 1,
    trial_days: 0,
    ...recurring,
    active: 0,
    daysAgo: 150,
  },
  {
    id: 'mpp_demo_studio_monthly',
    plan_id: 'mpl_demo_studio_pass',
    amount: 1900,
    currency: 'USD',
    interval: 'month',
    interval_count: 1,
    trial_days: 7,
    ...recurring,
    active: 1,
    daysAgo: 45,
  },
  {
    id: 'mpp_demo_studio_yearly',
    plan_id: 'mpl_demo_studio_pass',
    amount: 19000,
    currency: 'USD',
    interval: 'year',
    interval_count: 1,
    trial_days: 0,
    ...recurring,
    active: 1,
    daysAgo: 150,
  },
  {
    id: 'mpp_demo_founders_lifetime',
    plan_id: 'mpl_demo_founders_lifetime',
    amount: 49900,
    currency: 'USD',
    interval: null,
    interval_count: null,
    trial_days: 0,
    ...recurring,
    active: 1,
    daysAgo: 200,
  },
  {
    id: 'mpp_demo_summer_bootcamp',
    plan_id: 'mpl_demo_summer_bootcamp',
    amount: 5900,
    currency: 'USD',
    interval: null,
    interval_count: null,
    trial_days: 0,
    access_days: 60,
    ends_on: null,
    active: 1,
    daysAgo: 5,
  },
]

/** One demo subscription: who, which price, when it started and what became of it. */
interface DemoSubscription {
  readonly id: string
  readonly student: string
  readonly price: string
  readonly startedDaysAgo: number
  readonly status: SubscriptionTable['status']
  readonly source?: 'checkout' | 'manual'
  readonly cancelling?: { daysAgo: number; reason: string }
  /** Expired: ended this many days ago, at the end of its last paid period. */
  readonly endedDaysAgo?: number
  /** Manual grants: days from now the comp ends. */
  readonly grantDays?: number
}

/**
 * Students come from the first part's `students` rows (stu_demo_01 joined 90 days ago, each
 * next one 2 days later; 08 is blocked, 39 and 40 invited), so every subscription starts
 * after its student joined.
 */
const SUBSCRIPTIONS: DemoSubscription[] = [
  // Active: two monthly (one kept the old $15 price), two yearly.
  {
    id: 'sub_demo_monthly_legacy',
    student: 'stu_demo_01',
    price: 'mpp_demo_studio_monthly_legacy',
    startedDaysAgo: 85,
    status: 'active',
  },
  {
    id: 'sub_demo_monthly',
    student: 'stu_demo_11',
    price: 'mpp_demo_studio_monthly',
    startedDaysAgo: 40,
    status: 'active',
  },
  {
    id: 'sub_demo_yearly_1',
    student: 'stu_demo_02',
    price: 'mpp_demo_studio_yearly',
    startedDaysAgo: 60,
    status: 'active',
  },
  {
    id: 'sub_demo_yearly_2',
    student: 'stu_demo_13',
    price: 'mpp_demo_studio_yearly',
    startedDaysAgo: 20,
    status: 'active',
  },
  {
    id: 'sub_demo_trialing',
    student: 'stu_demo_21',
    price: 'mpp_demo_studio_monthly',
    startedDaysAgo: 3,
    status: 'trialing',
  },
  // Its 7-day trial ended three days ago and no payment has turned it active yet: still
  // marked trialing, it counts neither as active nor as trialing (src/api/money).
  {
    id: 'sub_demo_trial_lapsed',
    student: 'stu_demo_23',
    price: 'mpp_demo_studio_monthly',
    startedDaysAgo: 10,
    status: 'trialing',
  },
  // The renewal at the start of its current period failed.
  {
    id: 'sub_demo_past_due',
    student: 'stu_demo_15',
    price: 'mpp_demo_studio_monthly',
    startedDaysAgo: 43,
    status: 'past_due',
  },
  {
    id: 'sub_demo_cancelling',
    student: 'stu_demo_17',
    price: 'mpp_demo_studio_monthly',
    startedDaysAgo: 44,
    status: 'active',
    cancelling: { daysAgo: 2, reason: 'Taking a break over the summer' },
  },
  // Two paid months, then the renewal failed and the subscription lapsed.
  {
    id: 'sub_demo_expired',
    student: 'stu_demo_06',
    price: 'mpp_demo_studio_monthly_legacy',
    startedDaysAgo: 75,
    status: 'expired',
    endedDaysAgo: 7,
  },
  {
    id: 'sub_demo_founder',
    student: 'stu_demo_04',
    price: 'mpp_demo_founders_lifetime',
    startedDaysAgo: 70,
    status: 'active',
  },
  {
    id: 'sub_demo_comp',
    student: 'stu_demo_10',
    price: 'mpp_demo_studio_monthly',
    startedDaysAgo: 25,
    status: 'active',
    source: 'manual',
    grantDays: 65,
  },
]

/** The billing periods of a subscription, as the commerce seed reads them back. */
function periodsOf(
  sub: DemoSubscription,
  price: Price,
  now: number,
): Pick<
  SubscriptionTable,
  'trial_ends_at' | 'current_period_start' | 'current_period_end' | 'ended_at'
> {
  const started = now - sub.startedDaysAgo * DAY
  if (sub.source === 'manual')
    return {
      trial_ends_at: null,
      current_period_start: started,
      current_period_end: now + (sub.grantDays ?? 0) * DAY,
      ended_at: null,
    }
  if (!price.interval)
    return {
      trial_ends_at: null,
      current_period_start: started,
      current_period_end: null,
      ended_at: null,
    }
  const trialEnd = price.trial_days > 0 ? started + price.trial_days * DAY : null
  if (sub.status === 'trialing')
    return {
      trial_ends_at: trialEnd,
      current_period_start: started,
      current_period_end: trialEnd,
      ended_at: null,
    }
  // Paid periods run from the billing anchor (end of trial, else start) in whole months.
  const months = periodMonths(price.interval, price.interval_count ?? 1)
  const anchor = trialEnd ?? started
  const limit = sub.endedDaysAgo === undefined ? now : now - sub.endedDaysAgo * DAY
  let start = anchor
  while (addMonths(start, months) <= limit) start = addMonths(start, months)
  // An expired subscription's last period ended when its failed renewal fell due.
  if (sub.status === 'expired') start = addMonths(start, -months)
  const end = addMonths(start, months)
  return {
    trial_ends_at: trialEnd,
    current_period_start: start,
    current_period_end: end,
    ended_at: sub.status === 'expired' ? limit : null,
  }
}

/**
 * The memberships of the demo school (DOMAIN.md §4.7): Studio Pass (recurring, a price change
 * 45 days ago), Founders Lifetime (archived, one holder) and Summer Bootcamp (fixed term,
 * draft), with subscriptions in every state. Paid subscriptions are `source: checkout` with
 * `latest_order_id` null: the commerce seed, which runs later, makes their orders — the first
 * payment at the billing anchor (`trial_ends_at`, else `started_at`; none while trialing) and
 * one renewal per period up to `current_period_start` (the past-due one's renewal there
 * failed; the expired one's failed at `current_period_end`) — and fills `latest_order_id`.
 * A period is `interval_count` calendar months (UTC); lifetime subscriptions pay once.
 */
export async function seedMemberships(db: Db, now: number, _deps: AppDeps): Promise<void> {
  for (const { days, ...plan } of PLANS)
    await db
      .insertInto('membership_plans')
      .values({
        ...plan,
        created_at: now - (days[0] ?? 0) * DAY,
        updated_at: now - (days[1] ?? 0) * DAY,
      })
      .execute()
  for (const { daysAgo, ...price } of PRICES)
    await db
      .insertInto('membership_plan_prices')
      .values({ ...price, created_at: now - daysAgo * DAY })
      .execute()

  for (const sub of SUBSCRIPTIONS) {
    const price = PRICES.find((p) => p.id === sub.price)
    if (!price) throw new Error(`demo subscription ${sub.id}: no price ${sub.price}`)
    const manual = sub.source === 'manual'
    const started = now - sub.startedDaysAgo * DAY
    const periods = periodsOf(sub, price, now)
    const changed = sub.cancelling
      ? now - sub.cancelling.daysAgo * DAY
      : (periods.ended_at ?? periods.current_period_start)
    await db
      .insertInto('subscriptions')
      .values({
        id: sub.id,
        student_id: sub.student,
        plan_id: price.plan_id,
        price_id: price.id,
        status: sub.status,
        // A comp grant costs nothing and does not renew.
        amount: manual ? 0 : price.amount,
        currency: price.currency,
        interval: manual ? null : price.interval,
        interval_count: manual ? null : price.interval_count,
        source: manual ? 'manual' : 'checkout',
        started_at: started,
        ...periods,
        cancel_at_period_end: sub.cancelling ? 1 : 0,
        canceled_at: sub.cancelling ? now - sub.cancelling.daysAgo * DAY : null,
        cancellation_reason: sub.cancelling?.reason ?? null,
        latest_order_id: null,
        created_at: started,
        updated_at: Math.max(started, changed),
      })
      .execute()
  }
}
