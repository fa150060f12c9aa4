import type { Db } from '../../storage/schema.js'
import { integer } from '../framework/fields.js'
import { moneyList } from '../framework/money.js'
import type { RowOf } from '../framework/resource.js'
import type { ResourceDb } from '../framework/store.js'
import { object } from '../framework/structures.js'
import { PerCurrency } from '../money/currencies.js'
import { DEFINITIONS } from '../money/definitions.js'
import { loadMoneyRecords, loadSubscriptions, schoolCurrencies } from '../money/loading.js'
import { ALL_TIME, productFigures, productKey } from '../money/revenue.js'
import { mrrAt, subscriptionCounts } from '../money/subscriptions.js'

/** `stats`: a plan's figures, full view only. */
export const planStatsField = () =>
  object(
    {
      active_subscriptions: integer({ description: `Now. ${DEFINITIONS.activeSubscriptions}` }),
      trialing: integer({ description: `Now. ${DEFINITIONS.trialingSubscriptions}` }),
      mrr: moneyList(`Of the plan's subscriptions, now. ${DEFINITIONS.mrr}`),
      total_revenue: moneyList(DEFINITIONS.planRevenue),
    },
    { readOnly: true, description: 'Computed from subscriptions and orders' },
  )

/**
 * Stats, by the money rules (src/api/money): active and trialing subscriptions and MRR now,
 * and the plan's net revenue of all time, each money figure per currency.
 */
export async function loadPlanStats(
  db: ResourceDb,
  rows: RowOf<'membership_plans'>[],
  now: number,
): Promise<void> {
  const ids = rows.map((r) => r.id)
  const moneyDb: Db = db
  const [subs, records, currencies] = await Promise.all([
    loadSubscriptions(moneyDb, { planIds: ids }),
    loadMoneyRecords(moneyDb, { productType: 'membership_plan', productIds: ids }),
    schoolCurrencies(moneyDb),
  ])
  const products = productFigures(records, ALL_TIME, (l) => l.product_type === 'membership_plan')
  for (const row of rows) {
    const own = subs.filter((s) => s.plan_id === row.id)
    const counts = subscriptionCounts(own, now)
    const figures = products.get(productKey('membership_plan', row.id))
    row.stats = JSON.stringify({
      active_subscriptions: counts.active_subscriptions,
      trialing: counts.trialing_subscriptions,
      mrr: mrrAt(own, now, currencies),
      total_revenue: (figures?.net ?? new PerCurrency()).list(currencies),
    })
  }
}
