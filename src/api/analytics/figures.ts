/**
 * The arithmetic of the analytics reports, over plain rows already read from the database.
 * Pure: every function takes its rows and returns numbers in integer minor units, so the
 * definitions live in one place and are unit-tested without a server.
 */
import {
  type Interval,
  inWindow,
  localDay,
  periodStart,
  periodsOf,
  type Window,
} from './calendar.js'

/** Order statuses whose `total` is revenue (counted on `paid_at`). `free` orders never are. */
export const REVENUE_STATUSES = ['paid', 'partially_refunded', 'refunded'] as const

export interface RevenueOrder {
  readonly id: string
  readonly student_id: string | null
  readonly customer_email: string
  readonly total: number
  readonly paid_at: number
}

export interface RefundRow {
  readonly order_id: string
  readonly amount: number
  readonly created_at: number
}

/**
 * Who paid: the student when the order names one, else the lower-cased customer email (an
 * order without an account is still a customer).
 */
export function customerKey(order: Pick<RevenueOrder, 'student_id' | 'customer_email'>): string {
  return order.student_id ?? `email:${order.customer_email.trim().toLowerCase()}`
}

/** a / b rounded half up to an integer (b > 0, a ≥ 0): the average order value rule. */
export function divideRounded(a: number, b: number): number {
  if (b <= 0) return 0
  return Math.floor((2 * a + b) / (2 * b))
}

export interface RevenueFigures {
  gross: number
  refunds: number
  net: number
  orders_count: number
}

/**
 * Revenue of a window: gross = totals of revenue orders paid in it; refunds = refunds created
 * in it (whenever their order was paid); net = gross − refunds (may be negative).
 */
export function revenueOf(
  orders: readonly RevenueOrder[],
  refunds: readonly RefundRow[],
  window: Window,
): RevenueFigures & { paying_customers: number; average_order_value: number } {
  const paid = orders.filter((o) => inWindow(o.paid_at, window))
  const gross = sum(paid.map((o) => o.total))
  const refunded = sum(refunds.filter((r) => inWindow(r.created_at, window)).map((r) => r.amount))
  return {
    gross,
    refunds: refunded,
    net: gross - refunded,
    orders_count: paid.length,
    paying_customers: new Set(paid.filter((o) => o.total > 0).map(customerKey)).size,
    average_order_value: divideRounded(gross, paid.length),
  }
}

/** Revenue per period of the window, every period present (zeros included). */
export function revenueSeries(
  orders: readonly RevenueOrder[],
  refunds: readonly RefundRow[],
  window: Window,
  interval: Interval,
): Array<{ period_start: number } & RevenueFigures> {
  const periods = new Map<number, RevenueFigures>()
  for (const start of periodsOf(window.from, window.to, interval))
    periods.set(start, { gross: 0, refunds: 0, net: 0, orders_count: 0 })
  const bucket = (ms: number) =>
    periods.get(periodStart(localDay(ms, window.timeZone), interval)) as RevenueFigures
  for (const order of orders) {
    if (!inWindow(order.paid_at, window)) continue
    const figures = bucket(order.paid_at)
    figures.gross += order.total
    figures.net += order.total
    figures.orders_count += 1
  }
  for (const refund of refunds) {
    if (!inWindow(refund.created_at, window)) continue
    const figures = bucket(refund.created_at)
    figures.refunds += refund.amount
    figures.net -= refund.amount
  }
  return [...periods].map(([period_start, figures]) => ({ period_start, ...figures }))
}

/**
 * Splits `amount` over `weights` in proportion, in integers that add up to `amount` exactly
 * (largest remainder; ties to the earlier weight). All-zero weights split evenly.
 */
export function allocate(amount: number, weights: readonly number[]): number[] {
  if (weights.length === 0) return []
  const base = weights.every((w) => w <= 0)
    ? weights.map(() => 1)
    : weights.map((w) => Math.max(w, 0))
  const total = sum(base)
  const shares = base.map((w) => Math.floor((amount * w) / total))
  let left = amount - sum(shares)
  const order = base
    .map((w, i) => ({ i, remainder: (amount * w) % total }))
    .sort((a, b) => b.remainder - a.remainder || a.i - b.i)
  for (const { i } of order) {
    if (left <= 0) break
    shares[i] = (shares[i] ?? 0) + 1
    left -= 1
  }
  return shares
}

export interface OrderLine {
  readonly order_id: string
  readonly position: number
  readonly product_type: string
  readonly product_id: string
  readonly name: string
  readonly quantity: number
  readonly total_amount: number
}

export interface ProductFigures {
  product_type: string
  product_id: string
  name: string
  units: number
  gross: number
  refunds: number
  net: number
}

export type ProductSort = 'net_revenue' | 'gross_revenue' | 'refunds' | 'units' | 'name'
export const PRODUCT_SORTS: readonly ProductSort[] = [
  'net_revenue',
  'gross_revenue',
  'refunds',
  'units',
  'name',
]

/**
 * Revenue per product: units and gross from the lines of revenue orders paid in the window
 * (gross = the line's `total_amount`, after its discount); refunds created in the window are
 * spread over their order's lines in proportion to the line totals (see allocate). A product
 * is named after its most recent line.
 */
export function productRanking(
  orders: readonly RevenueOrder[],
  lines: readonly OrderLine[],
  refunds: readonly RefundRow[],
  window: Window,
): ProductFigures[] {
  const paidAt = new Map(orders.map((o) => [o.id, o.paid_at]))
  const linesOf = new Map<string, OrderLine[]>()
  for (const line of [...lines].sort((a, b) => a.position - b.position)) {
    const list = linesOf.get(line.order_id) ?? []
    list.push(line)
    linesOf.set(line.order_id, list)
  }
  const products = new Map<string, ProductFigures & { named_at: number }>()
  const entry = (line: OrderLine) => {
    const key = `${line.product_type}\u0000${line.product_id}`
    let figures = products.get(key)
    if (!figures) {
      figures = {
        product_type: line.product_type,
        product_id: line.product_id,
        name: line.name,
        units: 0,
        gross: 0,
        refunds: 0,
        net: 0,
        named_at: Number.NEGATIVE_INFINITY,
      }
      products.set(key, figures)
    }
    const at = paidAt.get(line.order_id) ?? Number.NEGATIVE_INFINITY
    if (at > figures.named_at) {
      figures.name = line.name
      figures.named_at = at
    }
    return figures
  }
  for (const order of orders) {
    if (!inWindow(order.paid_at, window)) continue
    for (const line of linesOf.get(order.id) ?? []) {
      const figures = entry(line)
      figures.units += line.quantity
      figures.gross += line.total_amount
      figures.net += line.total_amount
    }
  }
  for (const refund of refunds) {
    if (!inWindow(refund.created_at, window)) continue
    const orderLines = linesOf.get(refund.order_id) ?? []
    const shares = allocate(
      refund.amount,
      orderLines.map((l) => l.total_amount),
    )
    for (const [i, line] of orderLines.entries()) {
      const figures = entry(line)
      figures.refunds += shares[i] ?? 0
      figures.net -= shares[i] ?? 0
    }
  }
  return [...products.values()].map(({ named_at: _, ...figures }) => figures)
}

/** Sorts a ranking by one key (descending with `-`), ties by type then id. */
export function sortRanking(
  ranking: ProductFigures[],
  key: ProductSort,
  descending: boolean,
): ProductFigures[] {
  const value = (p: ProductFigures) =>
    key === 'net_revenue'
      ? p.net
      : key === 'gross_revenue'
        ? p.gross
        : key === 'refunds'
          ? p.refunds
          : key === 'units'
            ? p.units
            : 0
  const direction = descending ? -1 : 1
  return [...ranking].sort((a, b) => {
    const primary = key === 'name' ? a.name.localeCompare(b.name, 'en') : value(a) - value(b)
    if (primary !== 0) return primary * direction
    return a.product_type.localeCompare(b.product_type) || a.product_id.localeCompare(b.product_id)
  })
}

export interface SubscriptionRow {
  readonly status: string
  readonly amount: number
  readonly currency: string
  readonly interval: string | null
  readonly interval_count: number | null
  readonly source: string
  readonly started_at: number
  readonly trial_ends_at: number | null
  readonly ended_at: number | null
}

/** Statuses of a subscription that has not ended. */
const RUNNING = new Set(['trialing', 'active', 'past_due'])

/**
 * Whether a subscription ran at instant `at`: started by then, not `incomplete`, and not
 * ended by then (`ended_at` after `at`, or no `ended_at` and still trialing/active/past_due —
 * a subscription cancelling at period end is still running).
 */
export function runningAt(sub: SubscriptionRow, at: number): boolean {
  if (sub.status === 'incomplete' || sub.started_at > at) return false
  if (sub.ended_at !== null) return sub.ended_at > at
  return RUNNING.has(sub.status)
}

/** The monthly value of a recurring price, unrounded: yearly / 12, every 3 months / 3, … */
export function monthlyAmount(sub: SubscriptionRow): number {
  const count = sub.interval_count && sub.interval_count > 0 ? sub.interval_count : 1
  switch (sub.interval) {
    case 'month':
      return sub.amount / count
    case 'year':
      return sub.amount / (12 * count)
    case 'week':
      return (sub.amount * 52) / (12 * count)
    case 'day':
      return (sub.amount * 365) / (12 * count)
    default:
      return 0
  }
}

/**
 * Subscription figures at instant `at`: `active` counts running subscriptions (trials and
 * manual grants included); `mrr` sums the monthly amount of running, recurring subscriptions
 * that pay — out of trial at `at`, not granted manually, in `currency` — rounded half up once
 * at the end. `churned` counts subscriptions whose `ended_at` falls in the window.
 */
export function subscriptionFigures(
  subs: readonly SubscriptionRow[],
  window: Window,
  at: number,
  currency: string,
): { active_subscriptions: number; mrr: number; churned_subscriptions: number } {
  const running = subs.filter((s) => runningAt(s, at))
  const paying = running.filter(
    (s) =>
      s.interval !== null &&
      s.source !== 'manual' &&
      s.currency === currency &&
      !(s.trial_ends_at !== null && s.trial_ends_at > at),
  )
  const mrr = sum(paying.map(monthlyAmount))
  return {
    active_subscriptions: running.length,
    mrr: Math.floor(mrr + 0.5 + 1e-9),
    churned_subscriptions: subs.filter((s) => s.ended_at !== null && inWindow(s.ended_at, window))
      .length,
  }
}

/** The instant subscription figures are read at: the window's last instant, or now if sooner. */
export function snapshotInstant(window: Window, now: number): number {
  return Math.min(window.end - 1, now)
}

export interface ProgressRow {
  readonly enrollment_id: string
  readonly lesson_id: string
  readonly completed_at: number
}

export interface CohortEnrollment {
  readonly id: string
  readonly student_id: string
}

/**
 * Course performance at the window's end. The cohort is the course's enrollments started by
 * then (revoked ones left out by the caller); a lesson counts as completed when it is
 * published and its completion is dated before the end. Rates are fractions in [0, 1] rounded
 * to 4 decimals.
 */
export function coursePerformance(
  cohort: readonly CohortEnrollment[],
  publishedLessons: ReadonlyArray<{ id: string; title: string }>,
  progress: readonly ProgressRow[],
  window: Window,
) {
  const members = new Set(cohort.map((e) => e.id))
  const lessonIds = new Set(publishedLessons.map((l) => l.id))
  const doneBy = new Map<string, Set<string>>()
  const activeStudents = new Set<string>()
  const studentOf = new Map(cohort.map((e) => [e.id, e.student_id]))
  for (const row of progress) {
    if (!members.has(row.enrollment_id)) continue
    if (inWindow(row.completed_at, window))
      activeStudents.add(studentOf.get(row.enrollment_id) ?? row.enrollment_id)
    if (row.completed_at >= window.end || !lessonIds.has(row.lesson_id)) continue
    const done = doneBy.get(row.lesson_id) ?? new Set<string>()
    done.add(row.enrollment_id)
    doneBy.set(row.lesson_id, done)
  }
  const lessonsDone = new Map<string, number>()
  for (const [, done] of doneBy)
    for (const id of done) lessonsDone.set(id, (lessonsDone.get(id) ?? 0) + 1)
  const total = publishedLessons.length
  const completedAll =
    total === 0 ? 0 : cohort.filter((e) => (lessonsDone.get(e.id) ?? 0) === total).length
  const progressSum = total === 0 ? 0 : sum(cohort.map((e) => (lessonsDone.get(e.id) ?? 0) / total))
  let reached: ReadonlySet<string> = members
  const lessons = publishedLessons.map((lesson) => {
    const done = doneBy.get(lesson.id) ?? new Set<string>()
    const dropped = [...reached].filter((id) => !done.has(id)).length
    const row = {
      lesson_id: lesson.id,
      title: lesson.title,
      completed: done.size,
      drop_off_rate: ratio(dropped, reached.size),
    }
    reached = done
    return row
  })
  return {
    active_learners: activeStudents.size,
    completion_rate: ratio(completedAll, cohort.length),
    average_progress: cohort.length === 0 ? 0 : round4(progressSum / cohort.length),
    lessons,
  }
}

/** Per-period student growth: signups, first purchases and active learners. */
export function studentSeries(
  input: {
    /** created_at of every student. */
    readonly signups: readonly number[]
    /** paid_at of every customer's first revenue order ever. */
    readonly firstPurchases: readonly number[]
    /** (student, completed_at) of every lesson completion. */
    readonly activity: ReadonlyArray<{ student_id: string; at: number }>
  },
  window: Window,
  interval: Interval,
) {
  const periods = new Map<
    number,
    { signups: number; first_purchases: number; active: Set<string> }
  >()
  for (const start of periodsOf(window.from, window.to, interval))
    periods.set(start, { signups: 0, first_purchases: 0, active: new Set() })
  const bucket = (ms: number) =>
    inWindow(ms, window)
      ? periods.get(periodStart(localDay(ms, window.timeZone), interval))
      : undefined
  for (const at of input.signups) {
    const period = bucket(at)
    if (period) period.signups += 1
  }
  for (const at of input.firstPurchases) {
    const period = bucket(at)
    if (period) period.first_purchases += 1
  }
  for (const { student_id, at } of input.activity) bucket(at)?.active.add(student_id)
  return [...periods].map(([period_start, p]) => ({
    period_start,
    signups: p.signups,
    first_purchases: p.first_purchases,
    active_students: p.active.size,
  }))
}

/** The paid_at of each customer's first revenue order (with a positive total). */
export function firstPurchases(orders: readonly RevenueOrder[]): number[] {
  const first = new Map<string, number>()
  for (const order of orders) {
    if (order.total <= 0) continue
    const key = customerKey(order)
    const seen = first.get(key)
    if (seen === undefined || order.paid_at < seen) first.set(key, order.paid_at)
  }
  return [...first.values()]
}

function ratio(part: number, whole: number): number {
  return whole === 0 ? 0 : round4(part / whole)
}

function round4(value: number): number {
  return Math.round(value * 10_000) / 10_000
}

function sum(values: readonly number[]): number {
  let total = 0
  for (const v of values) total += v
  return total
}
