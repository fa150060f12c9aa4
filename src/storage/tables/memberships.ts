/** The tables of this area, merged into the Schema of schema.ts. */
export interface MembershipTables {
  membership_plans: MembershipPlanTable
  membership_plan_prices: MembershipPlanPriceTable
  subscriptions: SubscriptionTable
}

export interface MembershipPlanTable {
  id: string
  name: string
  slug: string
  description: string | null
  cover_image_url: string | null
  status: 'draft' | 'active' | 'archived'
  /** 0/1: listed on the pricing page. */
  visible: number
  billing_type: 'recurring' | 'fixed_term' | 'lifetime'
  /** JSON `{course_ids, digital_product_ids, post_access, event_access}`. */
  includes: string
  /** JSON string list. */
  features: string
  /** JSON `[{question, answer}]`. */
  faq: string
  position: number
  created_at: number
  updated_at: number
}

/** One price of a plan; never edited but for `active` (a change is a new row). */
export interface MembershipPlanPriceTable {
  id: string
  plan_id: string
  /** Integer minor units. */
  amount: number
  currency: string
  interval: 'month' | 'year' | null
  interval_count: number | null
  trial_days: number
  access_days: number | null
  /** Date-only `YYYY-MM-DD` (a fixed term that ends on a date). */
  ends_on: string | null
  /** 0/1: offered to new subscribers. */
  active: number
  created_at: number
}

export interface SubscriptionTable {
  id: string
  student_id: string
  plan_id: string
  price_id: string
  status: 'trialing' | 'active' | 'past_due' | 'canceled' | 'expired' | 'incomplete'
  /** What each period costs this subscriber (kept when the plan's prices change); minor units. */
  amount: number
  currency: string
  interval: 'month' | 'year' | null
  interval_count: number | null
  source: 'checkout' | 'manual' | 'import'
  started_at: number
  trial_ends_at: number | null
  current_period_start: number
  /** null: no end (lifetime). */
  current_period_end: number | null
  /** 0/1 */
  cancel_at_period_end: number
  canceled_at: number | null
  cancellation_reason: string | null
  ended_at: number | null
  latest_order_id: string | null
  created_at: number
  updated_at: number
}
