/** The tables of this area, merged into the Schema of schema.ts. */
export interface CommerceTables {
  coupons: CouponTable
  orders: OrderTable
  order_items: OrderItemTable
  refunds: RefundTable
}

export type OrderStatus =
  | 'pending'
  | 'paid'
  | 'failed'
  | 'expired'
  | 'refunded'
  | 'partially_refunded'
  | 'free'

export type OrderProductType = 'course' | 'membership_plan' | 'digital_product' | 'event_ticket'

export interface OrderTable {
  id: string
  /** Human-readable, unique (`"1042"`). */
  number: string
  status: OrderStatus
  student_id: string | null
  customer_email: string
  customer_name: string | null
  currency: string
  /** Amounts in integer minor units of `currency`. */
  subtotal: number
  discount_total: number
  tax_total: number
  total: number
  amount_refunded: number
  coupon_id: string | null
  /** The code as typed at checkout (the coupon may be deleted later). */
  coupon_code: string | null
  /** JSON `{provider, method, provider_reference, last4?}`. */
  payment: string
  subscription_id: string | null
  source: 'checkout' | 'manual' | 'api' | 'import'
  paid_at: number | null
  created_at: number
  updated_at: number
}

export interface OrderItemTable {
  id: string
  order_id: string
  position: number
  product_type: OrderProductType
  product_id: string
  price_id: string | null
  /** Set on `event_ticket` lines. */
  event_id: string | null
  name: string
  quantity: number
  unit_amount: number
  discount_amount: number
  total_amount: number
}

export interface RefundTable {
  id: string
  order_id: string
  /** The line refunded; null: the whole order (allocated, src/api/money/refunds.ts). */
  order_line_id: string | null
  amount: number
  reason: string | null
  created_at: number
}

export interface CouponTable {
  id: string
  /** Stored upper-case; unique case-insensitively. */
  code: string
  name: string | null
  description: string | null
  /** JSON `{type, percent_off?, amount_off?: {amount, currency}}`. */
  discount: string
  /** JSON `{type: all|products, products: [{type, id}]}`. */
  applies_to: string
  /** JSON `{type: once|forever|repeating, months?}`. */
  duration: string
  max_redemptions: number | null
  max_redemptions_per_customer: number | null
  /** JSON Money or null. */
  min_order_amount: string | null
  starts_at: number | null
  expires_at: number | null
  enabled: number
  created_at: number
  updated_at: number
}
