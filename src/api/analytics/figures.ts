/**
 * The arithmetic of the analytics reports, over plain rows already read from the database.
 * Pure: every function takes its rows and returns numbers in integer minor units, so the
 * definitions live in one place and are unit-tested without a server.
 */

import type { Money } from '../money/currencies.js'
import type { MoneyOrder, MoneyRecords } from '../money/records.js'
import { customerKey } from '../money/records.js'
import {
  countsAsRevenue,
  divideRounded,
  type ProductFigures as MoneyProductFigures,
  orderFigures,
  productFigures,
} from '../money/revenue.js'
import {
  type Interval,
  inWindow,
  localDay,
  periodStart,
  periodsOf,
  type Window,
} from './calendar.js'

/** Revenue of a window, per currency (the money rules: src/api/money/revenue.ts). */
export function revenueOf(records: MoneyRecords, window: Window, currencies: readonly string[]) {
  const figures = orderFigures(records, (at) => inWindow(at, window))
  return {
    gross: figures.gross.list(currencies),
    refunds: figures.refunds.list(currencies),
    net: figures.net.list(currencies),
    orders_count: figures.orders_count,
    paying_customers: figures.customers.size,
    average_order_value: currencies.map(
      (currency): Money => ({
        amount: divideRounded(
          figures.gross.get(currency),
          figures.orders_by_currency.get(currency),
        ),
        currency,
      }),
    ),
  }
}

export interface PeriodFigures {
  readonly period_start: number
  readonly gross: Money[]
  readonly refunds: Money[]
  readonly net: Money[]
  readonly orders_count: number
}

/** Revenue per period of the window, every period present (zeros included). */
export function revenueSeries(
  records: MoneyRecords,
  window: Window,
  interval: Interval,
  currencies: readonly string[],
): PeriodFigures[] {
  const periodOf = (ms: number) => periodStart(localDay(ms, window.timeZone), interval)
  return periodsOf(window.from, window.to, interval).map((start) => {
    const figures = orderFigures(records, (at) => inWindow(at, window) && periodOf(at) === start)
    return {
      period_start: start,
      gross: figures.gross.list(currencies),
      refunds: figures.refunds.list(currencies),
      net: figures.net.list(currencies),
      orders_count: figures.orders_count,
    }
  })
}

export interface ProductFigures {
  readonly product_type: string
  readonly product_id: string
  readonly name: string
  readonly units: number
  readonly gross: Money[]
  readonly refunds: Money[]
  readonly net: Money[]
}

export type ProductSort = 'net_revenue' | 'gross_revenue' | 'refunds' | 'units' | 'name'
export const PRODUCT_SORTS: readonly ProductSort[] = [
  'net_revenue',
  'gross_revenue',
  'refunds',
  'units',
  'name',
]

const listed = (p: MoneyProductFigures, currencies: readonly string[]): ProductFigures => ({
  product_type: p.product_type,
  product_id: p.product_id,
  name: p.name,
  units: p.units,
  gross: p.gross.list(currencies),
  refunds: p.refunds.list(currencies),
  net: p.net.list(currencies),
})

/**
 * Revenue per product in the window (src/api/money/revenue.ts, productFigures): units and
 * gross from the lines of revenue orders paid in it, refunds created in it charged to lines by
 * the refund rule (src/api/money/refunds.ts), per currency.
 */
export function productRanking(
  records: MoneyRecords,
  window: Window,
  currencies: readonly string[],
): ProductFigures[] {
  return [...productFigures(records, (at) => inWindow(at, window)).values()].map((p) =>
    listed(p, currencies),
  )
}

/**
 * Sorts a ranking by one key (descending with `-`). Money keys compare currency by currency
 * in the listed order (the school currency first); ties by type then id.
 */
export function sortRanking(
  ranking: ProductFigures[],
  key: ProductSort,
  descending: boolean,
): ProductFigures[] {
  const values = (p: ProductFigures): number[] =>
    key === 'net_revenue'
      ? p.net.map((m) => m.amount)
      : key === 'gross_revenue'
        ? p.gross.map((m) => m.amount)
        : key === 'refunds'
          ? p.refunds.map((m) => m.amount)
          : key === 'units'
            ? [p.units]
            : []
  const direction = descending ? -1 : 1
  const compare = (a: number[], b: number[]) => {
    for (let i = 0; i < Math.max(a.length, b.length); i += 1) {
      const d = (a[i] ?? 0) - (b[i] ?? 0)
      if (d !== 0) return d
    }
    return 0
  }
  return [...ranking].sort((a, b) => {
    const primary =
      key === 'name' ? a.name.localeCompare(b.name, 'en') : compare(values(a), values(b))
    if (primary !== 0) return primary * direction
    return a.product_type.localeCompare(b.product_type) || a.product_id.localeCompare(b.product_id)
  })
}

/** Subscriptions whose `ended_at` falls in the window. */
export function churnedIn(
  subs: ReadonlyArray<{ readonly ended_at: number | null }>,
  window: Window,
): number {
  return subs.filter((s) => s.ended_at !== null && inWindow(s.ended_at, window)).length
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

/** The paid_at of each customer's first revenue order (with a positive total, any currency). */
export function firstPurchases(orders: readonly MoneyOrder[]): number[] {
  const first = new Map<string, number>()
  for (const order of orders) {
    if (order.total <= 0 || !countsAsRevenue(order) || order.paid_at === null) continue
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
