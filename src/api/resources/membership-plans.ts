import type { Db } from '../../storage/schema.js'
import { conflict, type FieldError, timestamp, validationFailed } from '../conventions.js'
import {
  boolean,
  enumeration,
  type Field,
  field,
  html,
  integer,
  type Row,
  reference,
  text,
  url,
} from '../framework/fields.js'
import { money, moneyList } from '../framework/money.js'
import { defineResource, type ResourceContext } from '../framework/resource.js'
import type { ResourceDb } from '../framework/store.js'
import { checkMembers, membersSchema, object, structure } from '../framework/structures.js'
import { PerCurrency } from '../money/currencies.js'
import { DEFINITIONS } from '../money/definitions.js'
import { loadMoneyRecords, loadSubscriptions, schoolCurrencies } from '../money/loading.js'
import { ALL_TIME, productFigures, productKey } from '../money/revenue.js'
import { mrrAt, subscriptionCounts } from '../money/subscriptions.js'
import { schoolWide } from './owners.js'
import { schoolCurrency } from './school.js'
import { SLUG, uniqueSlug } from './slugs.js'

const DATE = /^\d{4}-\d{2}-\d{2}$/
const MAX_PRICES = 20

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
interface PriceInput {
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
interface PriceRow {
  id: string
  plan_id: string
  amount: number
  currency: string
  interval: string | null
  interval_count: number | null
  trial_days: number
  access_days: number | null
  ends_on: string | null
  active: number
  created_at: number
}

/** The JSON of a price. */
function priceView(price: PriceRow) {
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
 * column of the plan. `enrich` loads them into the row (so `fromColumn` passes them on);
 * `beforeWrite` turns the parsed list into price rows and removes it from the plan's values.
 */
function pricesField(): Field {
  const entry = membersSchema(priceMembers)
  return field(
    {
      public: true,
      default: [],
      description:
        'Existing prices (with id) may only change `active`; a new amount or interval is a new entry without id. Prices left out are deactivated, never deleted. The public view lists active prices only.',
    },
    {
      schema: {
        type: 'array',
        maxItems: MAX_PRICES,
        items: {
          ...entry,
          properties: {
            ...(entry.properties as Record<string, unknown>),
            created_at: { type: 'string', format: 'date-time', readOnly: true },
          },
        },
      },
      parse(value, path, errors) {
        if (!Array.isArray(value) || value.length > MAX_PRICES) {
          errors.push({
            field: path,
            code: 'type',
            message: `${path} must be a list of at most ${MAX_PRICES} prices`,
          })
          return undefined
        }
        return value.map((item, i) => checkMembers(priceMembers, item, `${path}[${i}]`, errors))
      },
      fromColumn: (v) => v ?? [],
      parseQuery: () => undefined,
    },
  )
}

/** Pricing-page bullets: up to 20 strings of up to 200 characters. */
const features = structure(
  { type: 'array', maxItems: 20, items: { type: 'string', maxLength: 200 } },
  (value, path, errors) => {
    if (
      !Array.isArray(value) ||
      value.length > 20 ||
      value.some((v) => typeof v !== 'string' || v.trim().length === 0 || v.length > 200)
    ) {
      errors.push({
        field: path,
        code: 'type',
        message: `${path} must be a list of at most 20 non-empty strings of at most 200 characters`,
      })
      return undefined
    }
    return (value as string[]).map((v) => v.trim())
  },
  { public: true, default: [] },
)

const faqMembers: Record<string, Field> = {
  question: text({ required: true, max: 200 }),
  answer: text({ required: true, max: 2000 }),
}

const faq = structure(
  { type: 'array', maxItems: 20, items: membersSchema(faqMembers) },
  (value, path, errors) => {
    if (!Array.isArray(value) || value.length > 20) {
      errors.push({ field: path, code: 'type', message: `${path} must list at most 20 entries` })
      return undefined
    }
    return value.map((item, i) => checkMembers(faqMembers, item, `${path}[${i}]`, errors))
  },
  { public: true, default: [] },
)

/** A list of ids with a prefix, stored inside `includes`. */
function idList(prefix: string): Field {
  const options = { default: [] }
  const pattern = new RegExp(`^${prefix}_[A-Za-z0-9_-]+$`)
  return structure(
    { type: 'array', maxItems: 100, items: { type: 'string', pattern: pattern.source } },
    (value, path, errors) => {
      if (
        !Array.isArray(value) ||
        value.length > 100 ||
        value.some((v) => typeof v !== 'string' || !pattern.test(v))
      ) {
        errors.push({
          field: path,
          code: 'type',
          message: `${path} must be a list of ids starting with ${prefix}_`,
        })
        return undefined
      }
      return [...new Set(value as string[])]
    },
    options,
  )
}

const NO_INCLUDES = {
  course_ids: [],
  digital_product_ids: [],
  post_access: false,
  event_access: false,
}

interface Includes {
  course_ids: string[]
  digital_product_ids: string[]
  post_access: boolean
  event_access: boolean
}

const includesOf = (row: Row): Includes => ({
  ...NO_INCLUDES,
  ...(JSON.parse((row.includes as string | null) ?? '{}') as Partial<Includes>),
})

/**
 * Loads each plan's prices (all of them in the full view, active ones in the public view),
 * the titles of what it includes and, in the full view, its stats — one query each per page.
 */
async function enrichPlans(db: ResourceDb, rows: Row[], full: boolean, now: number): Promise<void> {
  const ids = rows.map((r) => r.id as string)
  const prices = (await db
    .selectFrom('membership_plan_prices')
    .selectAll()
    .where('plan_id', 'in', ids)
    .$if(!full, (q) => q.where('active', '=', 1))
    .orderBy('created_at')
    .orderBy('id')
    .execute()) as unknown as PriceRow[]

  const includes = new Map(rows.map((r) => [r.id as string, includesOf(r)]))
  const courseIds = [...new Set([...includes.values()].flatMap((i) => i.course_ids))]
  const productIds = [...new Set([...includes.values()].flatMap((i) => i.digital_product_ids))]
  const [courses, products] = await Promise.all([
    courseIds.length === 0
      ? []
      : db
          .selectFrom('courses')
          .select(['id', 'title', 'slug', 'status', 'visibility'])
          .where('id', 'in', courseIds)
          .execute(),
    productIds.length === 0
      ? []
      : db
          .selectFrom('digital_products')
          .select(['id', 'title', 'slug', 'status'])
          .where('id', 'in', productIds)
          .execute(),
  ])
  // The public sees the titles of published items only; unlisted courses are reachable by link.
  const courseShown = (c: Row) => full || (c.status === 'published' && c.visibility !== 'private')
  const productShown = (p: Row) => full || p.status === 'published'
  const item = (r: Row) => ({
    id: r.id,
    title: r.title,
    slug: r.slug,
    ...(full && { status: r.status }),
  })

  for (const row of rows) {
    const own = includes.get(row.id as string) ?? { ...NO_INCLUDES }
    const shownCourses = courses.filter((c) => own.course_ids.includes(c.id as string))
    const shownProducts = products.filter((p) => own.digital_product_ids.includes(p.id as string))
    row.prices = prices.filter((p) => p.plan_id === row.id).map(priceView)
    row.included = {
      courses: shownCourses.filter(courseShown).map(item),
      digital_products: shownProducts.filter(productShown).map(item),
    }
    if (!full)
      row.includes = JSON.stringify({
        ...own,
        course_ids: shownCourses.filter(courseShown).map((c) => c.id),
        digital_product_ids: shownProducts.filter(productShown).map((p) => p.id),
      })
  }
  if (full) await loadStats(db, rows, ids, now)
}

/**
 * Stats, by the money rules (src/api/money): active and trialing subscriptions and MRR now,
 * and the plan's net revenue of all time, each money figure per currency.
 */
async function loadStats(db: ResourceDb, rows: Row[], ids: string[], now: number): Promise<void> {
  const moneyDb = db as unknown as Db
  const [subs, records, currencies] = await Promise.all([
    loadSubscriptions(moneyDb, { planIds: ids }),
    loadMoneyRecords(moneyDb, { productType: 'membership_plan', productIds: ids }),
    schoolCurrencies(moneyDb),
  ])
  const products = productFigures(records, ALL_TIME, (l) => l.product_type === 'membership_plan')
  for (const row of rows) {
    const own = subs.filter((s) => s.plan_id === row.id)
    const counts = subscriptionCounts(own, now)
    const figures = products.get(productKey('membership_plan', row.id as string))
    row.stats = JSON.stringify({
      active_subscriptions: counts.active_subscriptions,
      trialing: counts.trialing_subscriptions,
      mrr: mrrAt(own, now, currencies),
      total_revenue: (figures?.net ?? new PerCurrency()).list(currencies),
    })
  }
}

/** The school's currency, which every price uses. */
/** Checks a new price against the plan's billing type; returns the row values it stores. */
function checkNewPrice(
  price: PriceInput,
  billingType: string,
  currency: string,
  path: string,
  errors: FieldError[],
): Omit<PriceRow, 'id' | 'plan_id' | 'created_at'> | undefined {
  const before = errors.length
  const error = (member: string, code: string, message: string) =>
    errors.push({ field: `${path}.${member}`, code, message })
  if (!price.amount) error('amount', 'required', 'a new price needs an amount')
  else if (price.amount.currency !== currency)
    error('amount', 'currency', `prices are in the school's currency, ${currency}`)
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

/** Whether an existing price still fits a billing type (after a billing type change). */
function fits(price: PriceRow, billingType: string): boolean {
  if (billingType === 'recurring') return price.interval !== null
  if (billingType === 'fixed_term') return price.access_days !== null || price.ends_on !== null
  return price.interval === null && price.access_days === null && price.ends_on === null
}

const hasSubscriptions = async (db: ResourceDb, planId: string) =>
  (await db
    .selectFrom('subscriptions')
    .select('id')
    .where('plan_id', '=', planId)
    .limit(1)
    .executeTakeFirst()) !== undefined

/** Refuses included courses and digital products that do not exist (422 naming the list). */
async function checkIncludes(db: ResourceDb, includes: Includes): Promise<void> {
  const errors: FieldError[] = []
  const check = async (table: string, ids: string[], member: string, noun: string) => {
    if (ids.length === 0) return
    const found = new Set(
      (await db.selectFrom(table).select('id').where('id', 'in', ids).execute()).map((r) => r.id),
    )
    const missing = ids.filter((id) => !found.has(id))
    if (missing.length > 0)
      errors.push({
        field: `includes.${member}`,
        code: 'not_found',
        message: `no ${noun} with id ${missing.join(', ')}`,
      })
  }
  await check('courses', includes.course_ids, 'course_ids', 'course')
  await check(
    'digital_products',
    includes.digital_product_ids,
    'digital_product_ids',
    'digital product',
  )
  if (errors.length > 0) throw validationFailed(errors)
}

/**
 * Writes the plan's prices from a `prices` list (create or PATCH): new entries become new
 * rows, existing ones may only switch `active`, and prices left out are deactivated. Runs
 * at the end of `beforeWrite`, after every check that could still refuse the write, so a
 * refused write changes no price (only a slug taken by a concurrent write in between could
 * leave a new price row without its plan).
 */
async function writePrices(
  context: ResourceContext,
  planId: string,
  billingType: string,
  status: string,
  list: PriceInput[] | undefined,
  stored: PriceRow[],
  billingChanged: boolean,
): Promise<void> {
  const currency = await schoolCurrency(context.db)
  const errors: FieldError[] = []
  const updates = new Map<string, number>()
  const inserts: PriceRow[] = []
  if (list) {
    for (const [i, price] of list.entries()) {
      const path = `prices[${i}]`
      if (price.id === undefined) {
        const values = checkNewPrice(price, billingType, currency, path, errors)
        if (values)
          inserts.push({
            ...values,
            id: context.deps.random.id('mpp'),
            plan_id: planId,
            created_at: context.now,
          })
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
      updates.set(current.id, price.active === false ? 0 : 1)
    }
    for (const price of stored) if (!updates.has(price.id)) updates.set(price.id, 0)
  }
  const activeAfter = [...stored.filter((p) => (updates.get(p.id) ?? p.active) === 1), ...inserts]
  if (billingChanged)
    for (const price of activeAfter)
      if (!fits(price, billingType))
        errors.push({
          field: 'prices',
          code: 'billing_type',
          message: `price ${price.id} does not fit billing_type ${billingType}; give new prices for it`,
        })
  if (status === 'active' && activeAfter.length === 0)
    errors.push({
      field: 'prices',
      code: 'required',
      message: 'an active plan needs an active price; archive the plan to stop sign-ups',
    })
  if (errors.length > 0) throw validationFailed(errors)
  for (const [id, active] of updates)
    if (stored.find((p) => p.id === id)?.active !== active)
      await context.db
        .updateTable('membership_plan_prices')
        .set({ active })
        .where('id', '=', id)
        .execute()
  if (inserts.length > 0)
    await context.db
      .insertInto('membership_plan_prices')
      .values(inserts as unknown as Row[])
      .execute()
}

/**
 * Membership plans (DOMAIN.md §4.3.11): recurring, fixed-term or lifetime access to courses,
 * digital products, members' posts and events. Prices follow the Stripe model: a change is
 * a new price and subscriptions keep theirs. Anonymous callers see active, visible plans.
 */
export const membershipPlans = defineResource({
  object: 'membership_plan',
  collection: 'membership_plans',
  table: 'membership_plans',
  idPrefix: 'mpl',
  summary: 'Membership plans and their prices',
  scopes: { read: 'membership_plans:read', write: 'membership_plans:write' },
  writeRoles: ['owner', 'admin', 'editor'],
  ownership: schoolWide('Membership plans are the school’s pricing; no person owns one'),
  operations: ['list', 'get', 'create', 'update', 'delete'],
  public: { get: { status: ['active'], visible: [1] } },
  slugField: 'slug',
  defaultSort: 'position',
  newLast: 'position',
  fields: {
    name: text({ public: true, required: true, max: 120, sortable: true, search: true }),
    slug: text({ public: true, max: 80, unique: true, ...SLUG }),
    description: html({ public: true, nullable: true }),
    cover_image_url: url({ public: true, nullable: true }),
    status: enumeration(['draft', 'active', 'archived'], {
      readOnly: true,
      filter: true,
      default: 'draft',
      description: 'Changed by the publish and archive actions',
    }),
    visible: boolean({
      filter: true,
      default: true,
      description: 'Listed on the pricing page (and in the public API) while active',
    }),
    billing_type: enumeration(['recurring', 'fixed_term', 'lifetime'], {
      public: true,
      required: true,
      filter: true,
      description: 'Cannot change once the plan has subscriptions',
    }),
    prices: pricesField(),
    includes: object(
      {
        course_ids: idList('crs'),
        digital_product_ids: idList('dpr'),
        post_access: boolean({ default: false, description: 'Members-only posts' }),
        event_access: boolean({ default: false, description: 'Members-only events' }),
      },
      { public: true, default: NO_INCLUDES },
    ),
    features,
    faq,
    position: integer({
      public: true,
      sortable: true,
      description: 'Order on the pricing page; new plans go last',
    }),
    included: structure(
      {
        type: 'object',
        properties: Object.fromEntries(
          ['courses', 'digital_products'].map((key) => [
            key,
            {
              type: 'array',
              items: {
                type: 'object',
                properties: {
                  id: { type: 'string' },
                  title: { type: 'string' },
                  slug: { type: 'string' },
                  status: { type: 'string', description: 'Full view only' },
                },
              },
            },
          ]),
        ),
      },
      () => undefined,
      {
        public: true,
        readOnly: true,
        description:
          'The courses and digital products `includes` names, with their titles (for the public: the published ones)',
      },
    ),
    stats: object(
      {
        active_subscriptions: integer({ description: `Now. ${DEFINITIONS.activeSubscriptions}` }),
        trialing: integer({ description: `Now. ${DEFINITIONS.trialingSubscriptions}` }),
        mrr: moneyList(`Of the plan's subscriptions, now. ${DEFINITIONS.mrr}`),
        total_revenue: moneyList(DEFINITIONS.planRevenue),
      },
      { readOnly: true, description: 'Computed from subscriptions and orders' },
    ),
  },
  enrich: (db, rows, full, now) => enrichPlans(db, rows, full, now),
  computed: (row) => ({
    included: row.included ?? { courses: [], digital_products: [] },
  }),
  async beforeCreate(context, values) {
    values.slug ??= await uniqueSlug(context.db, 'membership_plans', values.name as string)
  },
  async beforeWrite(context, values, existing) {
    const planId = (existing?.id ?? values.id) as string
    const billingType = (values.billing_type ?? existing?.billing_type) as string
    const billingChanged =
      existing !== undefined &&
      values.billing_type !== undefined &&
      values.billing_type !== existing.billing_type
    if (billingChanged && (await hasSubscriptions(context.db, planId)))
      throw conflict(
        'billing_type cannot change once the plan has subscriptions; create a new plan instead',
      )
    if (typeof values.includes === 'string')
      await checkIncludes(context.db, { ...NO_INCLUDES, ...JSON.parse(values.includes) })
    // The slug is checked here too, so that a taken slug refuses the write before any price row changes.
    if (
      typeof values.slug === 'string' &&
      (await context.db
        .selectFrom('membership_plans')
        .select('id')
        .where('slug', '=', values.slug)
        .where('id', '<>', planId)
        .executeTakeFirst())
    )
      throw validationFailed([{ field: 'slug', code: 'taken', message: 'slug is already taken' }])
    const list = values.prices as PriceInput[] | undefined
    delete values.prices
    if (list === undefined && !billingChanged) return
    const stored = existing
      ? ((await context.db
          .selectFrom('membership_plan_prices')
          .selectAll()
          .where('plan_id', '=', planId)
          .execute()) as unknown as PriceRow[])
      : []
    await writePrices(
      context,
      planId,
      billingType,
      (existing?.status ?? 'draft') as string,
      list,
      stored,
      billingChanged,
    )
  },
  async beforeDelete(context, row) {
    const sold = await context.db
      .selectFrom('order_items')
      .select('id')
      .where('product_type', '=', 'membership_plan')
      .where('product_id', '=', row.id as string)
      .limit(1)
      .executeTakeFirst()
    if (sold || (await hasSubscriptions(context.db, row.id as string)))
      throw conflict(
        'a plan with subscriptions or orders cannot be deleted; archive it instead (POST …/archive): existing subscriptions continue',
      )
  },
  async remove(context, row) {
    await context.db
      .deleteFrom('membership_plan_prices')
      .where('plan_id', '=', row.id as string)
      .execute()
    await context.db
      .deleteFrom('membership_plans')
      .where('id', '=', row.id as string)
      .execute()
  },
  lifecycle: {
    publish: {
      summary: 'Open the plan to sign-ups (draft or archived → active); it needs an active price',
      to: 'active',
      async check(context, row) {
        const price = await context.db
          .selectFrom('membership_plan_prices')
          .select('id')
          .where('plan_id', '=', row.id)
          .where('active', '=', 1)
          .executeTakeFirst()
        if (!price)
          throw validationFailed([
            {
              field: 'prices',
              code: 'required',
              message: 'a plan needs at least one active price to be published',
            },
          ])
      },
    },
    archive: { summary: 'Stop new sign-ups; existing subscriptions continue', to: 'archived' },
  },
})
