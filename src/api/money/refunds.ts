/**
 * Where a refund's money comes back from: the tax rule and the allocation rule.
 *
 * Tax: an order's `total` is its line totals (after discounts) plus `tax_total`. Order
 * figures (overview, revenue series, coupon revenue) count totals, tax included; product
 * figures (product ranking, plan and digital-product stats) count line totals, tax excluded.
 * So a refund is split into line parts and a tax part, and a product is charged its line part
 * only:
 * - a refund naming a line (`order_line_id`) is split between that line (weighted by its
 *   total) and that line's share of the tax (the order's tax allocated over its lines by their
 *   totals);
 * - a refund naming no line is split over every line of the order (weighted by its total) and
 *   the tax (weighted by `tax_total`).
 * Every split is by largest remainder (allocation.ts), exact in minor units: the parts add up
 * to the refund.
 */
import { allocate } from './allocation.js'
import type { MoneyLine, MoneyOrder, MoneyRefund } from './records.js'

export interface RefundParts {
  /** The amount charged to each line, by line id (lines with nothing charged omitted). */
  readonly lines: ReadonlyMap<string, number>
  /** The part that refunds tax, charged to no product. */
  readonly tax: number
}

const byPosition = (lines: readonly MoneyLine[]) =>
  [...lines].sort((a, b) => a.position - b.position || a.id.localeCompare(b.id))

/** The share of the order's tax that each line carries, in line order. */
export function taxShares(order: Pick<MoneyOrder, 'tax_total'>, lines: readonly MoneyLine[]) {
  const sorted = byPosition(lines)
  const shares = allocate(
    order.tax_total,
    sorted.map((l) => l.total_amount),
  )
  return new Map(sorted.map((line, i) => [line.id, shares[i] ?? 0]))
}

/** Splits one refund of `order` (whose lines are `lines`) by the rule above. */
export function refundParts(
  order: Pick<MoneyOrder, 'tax_total'>,
  lines: readonly MoneyLine[],
  refund: Pick<MoneyRefund, 'amount' | 'order_line_id'>,
): RefundParts {
  const sorted = byPosition(lines)
  const named = refund.order_line_id && sorted.find((l) => l.id === refund.order_line_id)
  if (named) {
    const lineTax = taxShares(order, sorted).get(named.id) ?? 0
    const [line = 0, tax = 0] = allocate(refund.amount, [named.total_amount, lineTax])
    return { lines: new Map(line === 0 ? [] : [[named.id, line]]), tax }
  }
  const parts = allocate(refund.amount, [...sorted.map((l) => l.total_amount), order.tax_total])
  const charged = new Map<string, number>()
  for (const [i, line] of sorted.entries()) if (parts[i]) charged.set(line.id, parts[i] ?? 0)
  return { lines: charged, tax: parts[sorted.length] ?? 0 }
}

export interface RefundProblem {
  readonly field: string
  readonly code: string
  readonly message: string
}

/**
 * Checks a new refund against its order before it is written: a positive amount, a line (if
 * named) that belongs to this order, and no more refunded than was paid, on the order and,
 * for a named line, on that line with its share of the tax.
 */
export function checkRefund(
  order: Pick<MoneyOrder, 'id' | 'status' | 'total' | 'tax_total'>,
  lines: readonly MoneyLine[],
  earlier: readonly Pick<MoneyRefund, 'amount' | 'order_line_id'>[],
  refund: Pick<MoneyRefund, 'amount' | 'order_line_id'>,
): RefundProblem[] {
  const problems: RefundProblem[] = []
  if (!Number.isInteger(refund.amount) || refund.amount <= 0)
    problems.push({ field: 'amount', code: 'range', message: 'a refund is a positive amount' })
  if (!['paid', 'partially_refunded'].includes(order.status))
    problems.push({ field: 'order_id', code: 'status', message: 'only a paid order is refunded' })
  const refunded = earlier.reduce((n, r) => n + r.amount, 0)
  if (refunded + refund.amount > order.total)
    problems.push({
      field: 'amount',
      code: 'range',
      message: `at most ${order.total - refunded} is left to refund on this order`,
    })
  if (refund.order_line_id !== null) {
    const line = lines.find((l) => l.id === refund.order_line_id && l.order_id === order.id)
    if (!line)
      problems.push({
        field: 'order_line_id',
        code: 'not_found',
        message: `order ${order.id} has no line ${refund.order_line_id}`,
      })
    else {
      // What earlier refunds charged this line, named or split over the order: the line is
      // never charged more than it earned, so no product's net goes below zero.
      const charged = (r: Pick<MoneyRefund, 'amount' | 'order_line_id'>) =>
        refundParts(order, lines, r).lines.get(line.id) ?? 0
      const onLine = earlier.reduce((n, r) => n + charged(r), 0)
      if (onLine + charged(refund) > line.total_amount)
        problems.push({
          field: 'amount',
          code: 'range',
          message: `line ${line.id} has ${line.total_amount - onLine} left to refund, before tax`,
        })
    }
  }
  return problems
}
