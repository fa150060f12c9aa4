import type { MembershipPlanPriceTable } from '../../storage/tables/memberships.js'
import { type FieldError, timestamp, validationFailed } from '../conventions.js'
import { writeChildren } from '../framework/children.js'
import { boolean, enumeration, type Field, integer, reference, text } from '../framework/fields.js'
import { money } from '../framework/money.js'
import type { ResourceContext, RowOf } from '../framework/resource.js'
import type { ResourceDb } from '../framework/store.js'
import { list } from '../framework/structures.js'
import { shown } from '../framework/views.js'
import { schoolCurrency } from '../school/school.resource.js'

const DATE = /^\d{4}-\d{2}-\d{2}$/

/** What a `prices[]` entry may carry; an entry with `id` names an existing price. */
const priceMembers: Record<string, Field> = {
  id: reference('mpp'),
  amount: money(),
  interval: enumeration(['month', 'year'], { nullable: true }),
  interval_count: integer({ min: 1, max: 12, nullable: true }),
  trial_days: integer({ min: 0, max: 365 }),
  access_days: integer({ min: 1, max: 3650, nullable: true }),
  ends_on: text({ max: 10, pattern: DATE, patternHint: 'a date YYYY-MM-DD', nullable: true }),
  active: boolean(),
}

/** A price entry as parsed from a write. */
export interface PriceInput {
  id?: string
  amount?: { amount: number; currency: string }
  interval?: 'month' | 'year' | null
  interval_count?: number | null
  trial_days?: number
  access_days?: number | null
  ends_on?: string | null
  active?: boolean
}

/** A stored price row (membership_plan_prices). */
type PriceRow = RowOf<'membership_plan_prices'>

/** The JSON of a price. */
export function priceView(price: PriceRow) {
  return {
    id: price.id,
    amount: { amount: Number(price.amount), currency: price.currency },
    interval: price.interval,
    interval_count: price.interval_count,
    trial_days: price.trial_days,
    access_days: price.access_days,
    ends_on: price.ends_on,
    active: Boolean(price.active),
    created_at: timestamp(Number(price.created_at)),
  }
}

/**
 * `prices[]`: the plan's prices, kept as rows of `membership_plan_prices` rather than in a
 * column of the plan. `loadPrices` loads them into the row; the plan's `afterWrite` hands
 * the parsed list to `writePrices`.
 */
export const pricesField = () =>
  list(priceMembers, {
    max: 20,
    noun: 'prices',
    public: true,
    virtual: true,
    default: [],
    description:
      'Existing prices (with id) may only change `active`; a new amount or interval is a new entry without id. Prices left out are deactivated, never deleted. The public view lists active prices only.',
    shown: { created_at: shown.time() },
  })

/** Loads each plan's prices into `row.prices`: all of them in the full view, else the active ones. */
export async function loadPrices(
  db: ResourceDb,
  rows: RowOf<'membership_plans'>[],
  full: boolean,
): Promise<void> {
  const prices = (await db
    .selectFrom('membership_plan_prices')
    .selectAll()
    .where(
      'plan_id',
      'in',
      rows.map((r) => r.id),
    )
    .$if(!full, (q) => q.where('active', '=', 1))
    .orderBy('created_at')
    .orderBy('id')
    .execute()) as PriceRow[]
  for (const row of rows) row.prices = prices.filter((p) => p.plan_id === row.id).map(priceView)
}

/** Whether the plan has an active price (publishing needs one). */
export async function hasActivePrice(db: ResourceDb, planId: string): Promise<boolean> {
  const price = await db
    .selectFrom('membership_plan_prices')
    .select('id')
    .where('plan_id', '=', planId)
    .where('active', '=', 1)
    .executeTakeFirst()
  return price !== undefined
}

type NewPrice = Omit<MembershipPlanPriceTable, 'id' | 'plan_id' | 'created_at'>

/** Checks a new price against the plan's billing type; returns the row values it stores. */
function checkNewPrice(
  price: PriceInput,
  billingType: string,
  currency: string,
  path: string,
  errors: FieldError[],
): NewPrice | undefined {
  const before = errors.length
  const error = (member: string, code: string, message: string) =>
    errors.push({ field: `${path}.${member}`, code, message })
  if (!price.amount) error('amount', 'required', 'a new price needs an amount')
  else if (price.amount.currency !== currency)
    error('amount.currency', 'currency', `prices are in the school's currency, ${currency}`)
  if (price.active === false) error('active', 'invalid', 'a new price starts active')
  const has = (member: keyof PriceInput) => price[member] !== undefined && price[member] !== null
  if (billingType === 'recurring') {
    if (!has('interval')) error('interval', 'required', 'a recurring price needs an interval')
    for (const m of ['access_days', 'ends_on'] as const)
      if (has(m)) error(m, 'not_allowed', `a recurring price has no ${m}`)
  } else {
    for (const m of ['interval', 'interval_count'] as const)
      if (has(m)) error(m, 'not_allowed', `a ${billingType} price has no ${m}`)
    if (price.trial_days) error('trial_days', 'not_allowed', 'only recurring prices have trials')
  }
  if (billingType === 'fixed_term' && has('access_days') === has('ends_on'))
    error('access_days', 'required', 'a fixed-term price needs either access_days or ends_on')
  if (billingType === 'lifetime')
    for (const m of ['access_days', 'ends_on'] as const)
      if (has(m)) error(m, 'not_allowed', `a lifetime price has no ${m}`)
  if (price.ends_on && Number.isNaN(Date.parse(`${price.ends_on}T00:00:00Z`)))
    error('ends_on', 'format', 'ends_on must be a real date')
  if (errors.length > before || !price.amount) return undefined
  return {
    amount: price.amount.amount,
    currency,
    interval: billingType === 'recurring' ? (price.interval ?? null) : null,
    interval_count: billingType === 'recurring' ? (price.interval_count ?? 1) : null,
    trial_days: price.trial_days ?? 0,
    access_days: price.access_days ?? null,
    ends_on: price.ends_on ?? null,
    active: 1,
  }
}

/** Refuses an entry naming a stored price that changes more than `active`. */
function checkKeptPrice(price: PriceInput, current: PriceRow, path: string, errors: FieldError[]) {
  // An entry may repeat its price as read; any other change needs a new price.
  const view = priceView(current)
  for (const member of ['amount', 'interval', 'interval_count', 'trial_days'] as const) {
    const given = price[member]
    if (given !== undefined && JSON.stringify(given) !== JSON.stringify(view[member]))
      errors.push({
        field: `${path}.${member}`,
        code: 'immutable',
        message: `a price's ${member} cannot change; add a new entry without id (existing subscriptions keep their price)`,
      })
  }
  for (const member of ['access_days', 'ends_on'] as const) {
    const given = price[member]
    if (given !== undefined && given !== view[member])
      errors.push({
        field: `${path}.${member}`,
        code: 'immutable',
        message: `a price's ${member} cannot change; add a new entry without id`,
      })
  }
}

/** Whether a price still fits a billing type (after a billing type change). */
function fits(price: NewPrice, billingType: string): boolean {
  if (billingType === 'recurring') return price.interval !== null
  if (billingType === 'fixed_term') return price.access_days !== null || price.ends_on !== null
  return price.interval === null && price.access_days === null && price.ends_on === null
}

/** What a write of a plan's prices works with. */
export interface PricesWrite {
  readonly planId: string
  readonly billingType: string
  readonly status: string
  /** The submitted list; undefined when the write leaves the prices as they are. */
  readonly list: PriceInput[] | undefined
  readonly billingChanged: boolean
}

/**
 * Writes the plan's prices from a `prices` list (create or PATCH): new entries become new
 * rows, existing ones may only switch `active`, and prices left out are deactivated. Runs
 * in the plan's `afterWrite`, in the write's transaction: a refused list undoes the write.
 */
export async function writePrices(context: ResourceContext, write: PricesWrite): Promise<void> {
  const { planId, billingType, list: given } = write
  const stored = (await context.db
    .selectFrom('membership_plan_prices')
    .selectAll()
    .where('plan_id', '=', planId)
    .execute()) as PriceRow[]
  const currency = await schoolCurrency(context.db)
  const errors: FieldError[] = []
  const kept = new Map<string, number>()
  const inserts: PriceRow[] = []
  for (const [i, price] of (given ?? []).entries()) {
    const path = `prices[${i}]`
    if (price.id === undefined) {
      const values = checkNewPrice(price, billingType, currency, path, errors)
      const id = context.deps.random.id('mpp')
      if (values) inserts.push({ ...values, id, plan_id: planId, created_at: context.now })
      continue
    }
    const current = stored.find((p) => p.id === price.id)
    if (!current) {
      errors.push({
        field: `${path}.id`,
        code: 'not_found',
        message: 'no price of this plan with this id; omit id to add a new price',
      })
      continue
    }
    checkKeptPrice(price, current, path, errors)
    kept.set(current.id, price.active === false ? 0 : 1)
  }
  // Without a list, the stored prices stay as they are (a billing type change is checked).
  const activeOf = (p: PriceRow) => (given ? (kept.get(p.id) ?? 0) : p.active)
  const activeAfter = [...stored.filter((p) => activeOf(p) === 1), ...inserts]
  if (write.billingChanged)
    for (const price of activeAfter)
      if (!fits(price, billingType))
        errors.push({
          field: 'prices',
          code: 'billing_type',
          message: `price ${price.id} does not fit billing_type ${billingType}; give new prices for it`,
        })
  if (write.status === 'active' && activeAfter.length === 0)
    errors.push({
      field: 'prices',
      code: 'required',
      message: 'an active plan needs an active price; archive the plan to stop sign-ups',
    })
  if (errors.length > 0) throw validationFailed(errors)
  if (!given) return
  await writeChildren(context.db, {
    table: 'membership_plan_prices',
    parent: { column: 'plan_id', id: planId },
    stored,
    wanted: [...[...kept].map(([id, active]) => ({ id, active })), ...inserts],
    leftOut: { active: 0 },
  })
}
