import { conflict, validationFailed } from '../conventions.js'
import { boolean, enumeration, html, integer, text, url } from '../framework/fields.js'
import { defineResource, type RowOf } from '../framework/resource.js'
import { SLUG, uniqueSlug } from '../framework/slugs.js'
import type { ResourceDb } from '../framework/store.js'
import { list } from '../framework/structures.js'
import { schoolWide } from '../people/owners.js'
import { checkIncludes, includedField, includesField, loadIncluded } from './plan-includes.js'
import {
  hasActivePrice,
  loadPrices,
  type PriceInput,
  pricesField,
  writePrices,
} from './plan-prices.js'
import { loadPlanStats, planStatsField } from './plan-stats.js'

const hasSubscriptions = async (db: ResourceDb, planId: string) =>
  (await db
    .selectFrom('subscriptions')
    .select('id')
    .where('plan_id', '=', planId)
    .limit(1)
    .executeTakeFirst()) !== undefined

/** Whether an update changes the plan's billing type. */
const billingChanged = (
  values: Partial<RowOf<'membership_plans'>>,
  existing?: RowOf<'membership_plans'>,
) =>
  existing !== undefined &&
  values.billing_type !== undefined &&
  values.billing_type !== existing.billing_type

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
    includes: includesField(),
    features: list(text({ required: true, max: 200 }), {
      max: 20,
      noun: 'features',
      public: true,
      default: [],
    }),
    faq: list(
      {
        question: text({ required: true, max: 200 }),
        answer: text({ required: true, max: 2000 }),
      },
      { max: 20, noun: 'entries', public: true, default: [] },
    ),
    position: integer({
      public: true,
      sortable: true,
      description: 'Order on the pricing page; new plans go last',
    }),
    included: includedField(),
    stats: planStatsField(),
  },
  async enrich(db, rows, full, now) {
    await loadPrices(db, rows, full)
    await loadIncluded(db, rows, full)
    if (full) await loadPlanStats(db, rows, now)
  },
  computed: (row) => ({
    included: row.included ?? { courses: [], digital_products: [] },
  }),
  async beforeCreate(context, values) {
    values.slug ??= await uniqueSlug(context.db, 'membership_plans', values.name!)
  },
  async beforeWrite(context, values, existing) {
    if (
      billingChanged(values, existing) &&
      existing &&
      (await hasSubscriptions(context.db, existing.id))
    )
      throw conflict(
        'billing_type cannot change once the plan has subscriptions; create a new plan instead',
      )
    if (typeof values.includes === 'string') await checkIncludes(context.db, values.includes)
  },
  // After the plan's row (and its unique slug) is written, in the same transaction: a refused
  // price list undoes the whole write.
  async afterWrite(context, planId, values, existing) {
    const list = values.prices as PriceInput[] | undefined
    const changed = billingChanged(values, existing)
    if (list === undefined && !changed) return
    await writePrices(context, {
      planId,
      billingType: String(values.billing_type ?? existing?.billing_type),
      status: existing?.status ?? 'draft',
      list,
      billingChanged: changed,
    })
  },
  async beforeDelete(context, row) {
    const sold = await context.db
      .selectFrom('order_items')
      .select('id')
      .where('product_type', '=', 'membership_plan')
      .where('product_id', '=', row.id)
      .limit(1)
      .executeTakeFirst()
    if (sold || (await hasSubscriptions(context.db, row.id)))
      throw conflict(
        'a plan with subscriptions or orders cannot be deleted; archive it instead (POST …/archive): existing subscriptions continue',
      )
  },
  async remove(context, row) {
    await context.db.deleteFrom('membership_plan_prices').where('plan_id', '=', row.id).execute()
    await context.db.deleteFrom('membership_plans').where('id', '=', row.id).execute()
  },
  lifecycle: {
    publish: {
      summary: 'Open the plan to sign-ups (draft or archived → active); it needs an active price',
      to: 'active',
      async check(context, row) {
        if (!(await hasActivePrice(context.db, row.id)))
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
