/**
 * The records money is counted from: orders, their lines and their refunds, read as plain
 * values (numbers, not driver strings). Pure types; loading.ts reads them from the database.
 */

export interface MoneyOrder {
  readonly id: string
  readonly status: string
  readonly currency: string
  /** What the customer paid: line totals (after discounts) plus `tax_total`. */
  readonly total: number
  readonly tax_total: number
  readonly paid_at: number | null
  readonly coupon_id: string | null
  readonly student_id: string | null
  readonly customer_email: string
}

export interface MoneyLine {
  readonly id: string
  readonly order_id: string
  readonly position: number
  readonly product_type: string
  readonly product_id: string
  readonly name: string
  readonly quantity: number
  /** The line's price after its discount, before tax. */
  readonly total_amount: number
}

export interface MoneyRefund {
  readonly id: string
  readonly order_id: string
  /** The line the refund is for; null: the order as a whole (see refunds.ts). */
  readonly order_line_id: string | null
  readonly amount: number
  readonly created_at: number
}

export interface MoneyRecords {
  readonly orders: readonly MoneyOrder[]
  readonly lines: readonly MoneyLine[]
  readonly refunds: readonly MoneyRefund[]
}

/** Who paid: the student when the order names one, else the lower-cased customer email. */
export function customerKey(order: Pick<MoneyOrder, 'student_id' | 'customer_email'>): string {
  return order.student_id ?? `email:${order.customer_email.trim().toLowerCase()}`
}
