import type { Db } from '../../storage/schema.js'
import type { RowOf } from '../framework/resource.js'
import type { ResourceDb } from '../framework/store.js'
import { PerCurrency } from '../money/currencies.js'
import { loadMoneyRecords, schoolCurrencies } from '../money/loading.js'
import { ALL_TIME, productFigures, productKey } from '../money/revenue.js'
import { isRedeemedStatus } from '../money/statuses.js'

/**
 * Sales and revenue per product, by the money rules (src/api/money): units on redeemed orders
 * (free claims of a lead magnet included), and net revenue of all time per currency.
 */
export async function loadProductStats(
  db: ResourceDb,
  rows: RowOf<'digital_products'>[],
): Promise<void> {
  const ids = rows.map((r) => r.id)
  const moneyDb: Db = db
  const [records, currencies] = await Promise.all([
    loadMoneyRecords(moneyDb, { productType: 'digital_product', productIds: ids }),
    schoolCurrencies(moneyDb),
  ])
  const products = productFigures(records, ALL_TIME, (l) => l.product_type === 'digital_product')
  const redeemed = new Set(
    records.orders.filter((o) => isRedeemedStatus(o.status)).map((o) => o.id),
  )
  for (const row of rows) {
    row.sales_count = records.lines
      .filter(
        (l) =>
          l.product_type === 'digital_product' &&
          l.product_id === row.id &&
          redeemed.has(l.order_id),
      )
      .reduce((n, l) => n + l.quantity, 0)
    const figures = products.get(productKey('digital_product', row.id))
    row.revenue = (figures?.net ?? new PerCurrency()).list(currencies)
  }
}

/**
 * The plans whose `includes.digital_product_ids` name each product (for the public, only the
 * plans it may see: active and visible on the pricing page).
 */
export async function loadIncludingPlans(
  db: ResourceDb,
  rows: RowOf<'digital_products'>[],
  full: boolean,
): Promise<void> {
  let select = db
    .selectFrom('membership_plans')
    .select(['id', 'includes'])
    .where((eb) => eb.or(rows.map((r) => eb('includes', 'like', `%"${r.id}"%`))))
  if (!full) select = select.where('status', '=', 'active').where('visible', '=', 1)
  const plans = await select.orderBy('id').execute()
  for (const row of rows) {
    row.included_in_plan_ids = plans
      .filter((plan) => {
        const ids = (JSON.parse(plan.includes) as { digital_product_ids?: string[] })
          .digital_product_ids
        return Array.isArray(ids) && ids.includes(row.id)
      })
      .map((plan) => plan.id)
  }
}
