import { type FieldError, validationFailed } from '../conventions.js'
import type { RowOf } from '../framework/resource.js'
import type { ResourceDb } from '../framework/store.js'
import { schoolCurrency } from '../school/school.resource.js'

type ProductRow = RowOf<'digital_products'>

/**
 * Copies a written price into the `price_amount` and `currency` columns (for queries) and
 * checks it: in the school currency, with a `compare_at_price` in the same currency and more.
 */
export async function checkProductPrice(
  db: ResourceDb,
  values: Partial<ProductRow>,
  existing?: ProductRow,
): Promise<void> {
  const errors: FieldError[] = []
  if (typeof values.price === 'string') {
    const price = JSON.parse(values.price) as { amount: number; currency: string }
    values.price_amount = price.amount
    values.currency = price.currency
  }
  const currency = values.currency ?? existing?.currency
  const school = await schoolCurrency(db)
  if (currency !== school)
    errors.push({
      field: 'price.currency',
      code: 'currency',
      message: `prices are in the school currency, ${school}`,
    })
  const compare =
    values.compare_at_price !== undefined ? values.compare_at_price : existing?.compare_at_price
  if (typeof compare === 'string') {
    const { amount, currency: other } = JSON.parse(compare) as {
      amount: number
      currency: string
    }
    const priceAmount = values.price_amount ?? existing?.price_amount ?? 0
    if (other !== currency)
      errors.push({
        field: 'compare_at_price.currency',
        code: 'currency',
        message: 'compare_at_price must be in the currency of price',
      })
    else if (amount <= priceAmount)
      errors.push({
        field: 'compare_at_price.amount',
        code: 'range',
        message: 'compare_at_price must be more than price',
      })
  }
  if (errors.length > 0) throw validationFailed(errors)
}
