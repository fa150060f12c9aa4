import { conflict, type FieldError, validationFailed } from '../conventions.js'
import {
  enumeration,
  type Field,
  fail,
  integer,
  type Row,
  type StoredRow,
  text,
} from '../framework/fields.js'
import { money } from '../framework/money.js'
import type { ResourceContext } from '../framework/resource.js'
import { checkMembers, list, membersSchema, structure } from '../framework/structures.js'
import { schoolCurrency } from '../school/school.resource.js'
import { timesRedeemed } from './coupon-status.js'

/** What a coupon may be restricted to, and the table each kind lives in. */
const PRODUCT_TABLES = {
  course: 'courses',
  membership_plan: 'membership_plans',
  digital_product: 'digital_products',
  event: 'events',
} as const
type ProductType = keyof typeof PRODUCT_TABLES

/** A coupon code: typed in any case, stored upper-case (unique case-insensitively). */
export function couponCode(): Field {
  const inner = text({
    required: true,
    unique: true,
    sortable: true,
    search: true,
    max: 32,
    min: 3,
    pattern: /^[A-Za-z0-9_-]{3,32}$/,
    patternHint: '3 to 32 letters, digits, - or _',
    description: 'Stored upper-case; unique whatever the case',
    // A code is a secret of sorts (whoever knows it pays less): the activity record names it.
    activity: 'name',
  })
  return {
    ...inner,
    parse(value, path, errors) {
      const parsed = inner.parse(value, path, errors)
      return typeof parsed === 'string' ? parsed.toUpperCase() : parsed
    },
    parseQuery: (raw) => raw.toUpperCase(),
  }
}

const discountMembers = {
  type: enumeration(['percent', 'fixed_amount'], { required: true }),
  percent_off: integer({ min: 1, max: 100, description: 'With type percent' }),
  amount_off: money({ description: 'With type fixed_amount, in the school currency' }),
}

export interface Discount {
  type: 'percent' | 'fixed_amount'
  percent_off?: number
  amount_off?: { amount: number; currency: string }
}

/** `{type, percent_off}` or `{type, amount_off}`: exactly the member its type needs. */
export const discount = structure(
  membersSchema(discountMembers),
  (value, path, errors) => {
    const before = errors.length
    const parsed = checkMembers(discountMembers, value, path, errors) as Discount | undefined
    if (!parsed || errors.length > before) return undefined
    const [wanted, other] =
      parsed.type === 'percent' ? ['percent_off', 'amount_off'] : ['amount_off', 'percent_off']
    if (parsed[wanted as keyof Discount] === undefined)
      return fail(
        errors,
        `${path}.${wanted}`,
        'required',
        `a ${parsed.type} discount needs ${wanted}`,
      )
    if (parsed[other as keyof Discount] !== undefined)
      return fail(
        errors,
        `${path}.${other}`,
        'not_allowed',
        `a ${parsed.type} discount has no ${other}`,
      )
    if (parsed.amount_off && parsed.amount_off.amount < 1)
      return fail(errors, `${path}.amount_off.amount`, 'range', 'amount_off must be at least 1')
    return parsed.type === 'percent'
      ? { type: 'percent', percent_off: parsed.percent_off }
      : { type: 'fixed_amount', amount_off: parsed.amount_off }
  },
  { required: true, description: 'Percent off (1–100) or a fixed amount off' },
)

const productMembers = {
  type: enumeration(Object.keys(PRODUCT_TABLES), { required: true }),
  id: text({ required: true, max: 64, pattern: /^[a-z]+_[A-Za-z0-9_-]+$/, patternHint: 'an id' }),
}

const appliesToMembers = {
  type: enumeration(['all', 'products'], { required: true }),
  products: list(productMembers, { max: 100, noun: 'products' }),
}

/** `{type: all}` or `{type: products, products: [{type, id}]}` (at least one, at most 100). */
export const appliesTo = structure(
  membersSchema(appliesToMembers),
  (value, path, errors) => {
    const before = errors.length
    const parsed = checkMembers(appliesToMembers, value, path, errors)
    if (!parsed || errors.length > before) return undefined
    const products = (parsed.products as { type: string; id: string }[] | undefined) ?? []
    if (parsed.type === 'all' && products.length > 0)
      return fail(errors, `${path}.products`, 'not_allowed', 'a coupon for all products lists none')
    if (parsed.type === 'products' && products.length === 0)
      return fail(errors, `${path}.products`, 'required', 'name at least one product')
    const unique = [...new Map(products.map((p) => [`${p.type} ${p.id}`, p])).values()]
    return { type: parsed.type, products: unique.map((p) => ({ type: p.type, id: p.id })) }
  },
  { default: { type: 'all', products: [] }, description: 'Every product, or only those listed' },
)

const durationMembers = {
  type: enumeration(['once', 'forever', 'repeating'], { required: true }),
  months: integer({ min: 1, max: 36, description: 'With type repeating' }),
}

/** How long a discount lasts on a recurring plan: once, forever, or for `months`. */
export const duration = structure(
  membersSchema(durationMembers),
  (value, path, errors) => {
    const before = errors.length
    const parsed = checkMembers(durationMembers, value, path, errors)
    if (!parsed || errors.length > before) return undefined
    if (parsed.type === 'repeating' && parsed.months === undefined)
      return fail(errors, `${path}.months`, 'required', 'a repeating duration needs months')
    if (parsed.type !== 'repeating' && parsed.months !== undefined)
      return fail(errors, `${path}.months`, 'not_allowed', 'months is only for repeating')
    return parsed.type === 'repeating' ? { type: 'repeating', months: parsed.months } : parsed
  },
  { default: { type: 'once' }, description: 'For recurring plans: how many charges it reduces' },
)

const parsedOf = (value: unknown) => (typeof value === 'string' ? JSON.parse(value) : value)

function sameDiscount(a: unknown, b: unknown): boolean {
  const x = parsedOf(a) as Discount
  const y = parsedOf(b) as Discount
  return (
    x.type === y.type &&
    (x.percent_off ?? null) === (y.percent_off ?? null) &&
    (x.amount_off?.amount ?? null) === (y.amount_off?.amount ?? null) &&
    (x.amount_off?.currency ?? null) === (y.amount_off?.currency ?? null)
  )
}

/** Amounts in the school currency; restricted products must exist; the window must be open. */
export async function checkCoupon(
  context: ResourceContext,
  values: Row,
  existing?: StoredRow,
): Promise<void> {
  const { db } = context
  const errors: FieldError[] = []
  const currency = await schoolCurrency(db)
  const disc = values.discount !== undefined ? (parsedOf(values.discount) as Discount) : undefined
  if (disc?.amount_off && disc.amount_off.currency !== currency)
    errors.push({
      field: 'discount.amount_off.currency',
      code: 'currency',
      message: `amount_off must be in the school currency, ${currency}`,
    })
  const minimum = parsedOf(values.min_order_amount ?? null) as { currency: string } | null
  if (minimum && minimum.currency !== currency)
    errors.push({
      field: 'min_order_amount.currency',
      code: 'currency',
      message: `min_order_amount must be in the school currency, ${currency}`,
    })
  if (typeof values.applies_to === 'string') {
    const { products } = JSON.parse(values.applies_to) as {
      products: { type: ProductType; id: string }[]
    }
    for (const [i, product] of products.entries()) {
      const found = await db
        .selectFrom(PRODUCT_TABLES[product.type])
        .select('id')
        .where('id', '=', product.id)
        .executeTakeFirst()
      if (!found)
        errors.push({
          field: `applies_to.products[${i}].id`,
          code: 'not_found',
          message: `no ${product.type.replace('_', ' ')} with this id`,
        })
    }
  }
  const pick = (name: string) => (name in values ? values[name] : existing?.[name]) ?? null
  const startsAt = pick('starts_at')
  const expiresAt = pick('expires_at')
  if (startsAt !== null && expiresAt !== null && Number(expiresAt) <= Number(startsAt))
    errors.push({
      field: 'expires_at',
      code: 'range',
      message: 'expires_at must be after starts_at',
    })
  if (errors.length > 0) throw validationFailed(errors)

  if (!existing) return
  const changed: FieldError[] = []
  if (values.code !== undefined && values.code !== existing.code)
    changed.push({ field: 'code', code: 'frozen', message: 'code cannot change once redeemed' })
  if (values.discount !== undefined && !sameDiscount(values.discount, existing.discount))
    changed.push({
      field: 'discount',
      code: 'frozen',
      message: 'discount (and its currency) cannot change once redeemed',
    })
  if (changed.length > 0 && (await timesRedeemed(db, existing.id)) > 0)
    throw conflict(
      `the coupon has been redeemed, so its ${changed.map((e) => e.field).join(' and ')} can no longer change; create a new coupon (and disable this one) instead`,
      changed,
    )
}
