/**
 * The definition of every money figure, worded once and shown in the OpenAPI description of
 * every field that shows it (analytics, plan, digital-product and coupon stats). A money figure's
 * schema is `shown.money(definition)` (src/api/framework/views.ts, with Money's own view).
 */

export const CURRENCY_RULE =
  'A list of Money, one entry per currency: the school currency first (zero included), then every other currency the school has orders or subscriptions in, alphabetically. Each entry sums amounts of its own currency only: currencies are never converted or added together, and changing the school currency changes which currency is listed first, not what was earned.'

export const STATUS_RULE =
  'An order counts when its status is paid, partially_refunded or refunded (counted on `paid_at`); free, pending, failed and expired orders never count. Refunds count on their own `created_at`, whenever their order was paid.'

export const TAX_RULE =
  'Tax: order figures count order totals, tax included; product figures count line totals (after discounts), tax excluded, and are charged only the pre-tax part of a refund. A refund naming a line (`order_line_id`) is split between that line and its share of the tax; a refund naming no line is split over all the order’s lines and its tax, in proportion to their amounts (largest remainder, exact in minor units).'

export const DEFINITIONS = {
  orderGross: `Gross revenue: the totals (tax included) of counted orders paid in the range. ${STATUS_RULE}`,
  orderRefunds: 'Refunds created in the range, of counted orders (whenever they were paid).',
  orderNet: 'Net revenue: gross − refunds, per currency (may be negative).',
  averageOrderValue:
    'Per currency: gross / the number of counted orders in that currency paid in the range, rounded half up (0 without orders).',
  productGross: `Line totals (after line discounts, before tax) of counted orders paid in the range. ${STATUS_RULE}`,
  productRefunds: `The lines’ parts of the refunds created in the range. ${TAX_RULE}`,
  productNet: 'gross − refunds, per currency.',
  planRevenue: `Net revenue of the plan, all time: its order lines (before tax) on counted orders, less their parts of the refunds. ${STATUS_RULE} ${TAX_RULE}`,
  digitalRevenue: `Net revenue of the product, all time: its order lines (before tax) on counted orders, less their parts of the refunds. ${STATUS_RULE} ${TAX_RULE}`,
  couponRevenue: `Net revenue of the counted orders that used the coupon, all time: their totals (tax included) less all their refunds. ${STATUS_RULE}`,
  activeSubscriptions:
    'Active subscriptions at the instant: running (started, not incomplete, not ended) and out of trial — active, past due and cancelling at period end, manual grants included. A subscription still marked trialing after its trial ended (no payment recorded) counts neither as active nor as trialing.',
  trialingSubscriptions:
    'Subscriptions in trial at the instant: running, with `trial_ends_at` after it.',
  mrr: 'Monthly recurring revenue at the instant: per currency, the sum over paying subscriptions (active as defined for active subscriptions, with a recurring interval, not a manual grant) of their amount per month (monthly / interval_count, yearly / 12 / interval_count), rounded half up once at the end. Fixed-term and lifetime subscriptions do not count.',
} as const
