import type { FieldError } from '../conventions.js'
import { boolean, enumeration, type Field, integer, text } from '../framework/fields.js'
import { money } from '../framework/money.js'
import type { ResourceDb } from '../framework/store.js'
import { list, object, structure } from '../framework/structures.js'
import { schoolCurrency } from '../school/school.resource.js'

const planMembers: Record<string, Field> = {
  id: text({ max: 64, pattern: /^pln_[A-Za-z0-9_-]+$/, patternHint: 'an id starting with pln_' }),
  name: text({ required: true, max: 80 }),
  type: enumeration(['free', 'one_time', 'installments', 'pre_order'], { required: true }),
  price: money({ required: true }),
  installments_count: integer({ min: 2, max: 36, nullable: true }),
  access: object(
    {
      type: enumeration(['lifetime', 'days', 'until_date'], { required: true }),
      days: integer({ min: 1, max: 3650, nullable: true }),
      until: text({
        pattern: /^\d{4}-\d{2}-\d{2}$/,
        patternHint: 'a date YYYY-MM-DD',
        nullable: true,
      }),
    },
    { default: { type: 'lifetime' } },
  ),
  is_default: boolean({ default: false }),
  available: boolean({ default: true }),
}

type Plan = Record<string, unknown> & {
  type?: string
  price?: { amount?: number }
  access?: { type?: string; days?: number | null; until?: string | null }
  installments_count?: number | null
  is_default?: boolean
}

/** Checks one plan's own rules: the price fits the type, the access has what its type needs. */
function checkPlan(plan: Plan, path: string, errors: FieldError[]): void {
  if (plan.type === 'free' && plan.price?.amount !== 0)
    errors.push({ field: `${path}.price.amount`, code: 'range', message: 'a free plan costs 0' })
  if (plan.type !== 'free' && plan.price?.amount === 0)
    errors.push({
      field: `${path}.price.amount`,
      code: 'range',
      message: 'only a free plan costs 0',
    })
  if (plan.type === 'installments' && !plan.installments_count)
    errors.push({
      field: `${path}.installments_count`,
      code: 'required',
      message: 'an installments plan needs installments_count',
    })
  if (plan.access?.type === 'days' && !plan.access.days)
    errors.push({
      field: `${path}.access.days`,
      code: 'required',
      message: 'days access needs days',
    })
  if (plan.access?.type === 'until_date' && !plan.access.until)
    errors.push({
      field: `${path}.access.until`,
      code: 'required',
      message: 'until_date access needs until',
    })
}

/** The plans, each checked by its members and its own rules. */
const planList = list(planMembers, { min: 1, max: 10, noun: 'plans', check: checkPlan })

/** The pricing plans of a course: one to ten, at most one default (the first otherwise). */
export function pricingPlans(options: { public?: boolean; required?: boolean } = {}): Field {
  return structure(
    planList.schema(),
    (value, path, errors) => {
      if (!Array.isArray(value) || value.length < 1 || value.length > 10) {
        errors.push({ field: path, code: 'type', message: `${path} must list 1 to 10 plans` })
        return undefined
      }
      const plans = planList.parse(value, path, errors) as Plan[]
      const defaults = plans.filter((p) => p.is_default).length
      if (defaults > 1)
        errors.push({
          field: path,
          code: 'conflict',
          message: 'at most one plan may be the default',
        })
      if (defaults === 0 && plans[0]) plans[0].is_default = true
      return plans
    },
    options,
  )
}

/** Every plan's price is in the school currency, as every other price is (DOMAIN.md §4.0). */
export async function checkPlanCurrencies(
  db: ResourceDb,
  plans: readonly { price?: { currency?: string } }[],
  errors: FieldError[],
): Promise<void> {
  const currency = await schoolCurrency(db)
  plans.forEach((plan, i) => {
    if (plan.price?.currency !== currency)
      errors.push({
        field: `pricing_plans[${i}].price.currency`,
        code: 'currency',
        message: `prices are in the school currency, ${currency}`,
      })
  })
}
