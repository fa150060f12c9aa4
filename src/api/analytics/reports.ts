/**
 * The analytics reports (DOMAIN.md §4.3.6): reads the window's rows with plain SQL filters
 * (both engines) and leaves the arithmetic to figures.ts. Schools are small, so a report
 * reads the rows of its window (one day wider on each side, for time zones) and counts them
 * in TypeScript, where the definitions are easier to read and test.
 */
import { SCHOOL_ID } from '../../people/first-start.js'
import type { Db } from '../../storage/schema.js'
import { type Money, PerCurrency } from '../money/currencies.js'
import { loadMoneyRecords, loadSubscriptions, schoolCurrencies } from '../money/loading.js'
import type { MoneyOrder } from '../money/records.js'
import { REVENUE_STATUSES } from '../money/statuses.js'
import { mrrAt, subscriptionCounts } from '../money/subscriptions.js'
import {
  DAY_MS,
  formatDay,
  type Interval,
  inWindow,
  nextPeriod,
  previousWindow,
  type Window,
  windowOf,
} from './calendar.js'
import {
  churnedIn,
  coursePerformance,
  firstPurchases,
  productRanking,
  revenueOf,
  revenueSeries,
  snapshotInstant,
  sortRanking,
  studentSeries,
} from './figures.js'
import type { ReportQuery } from './report-query.js'
import {
  course as courseView,
  overview,
  productList,
  revenueList,
  studentList,
} from './report-schemas.js'

export interface SchoolSettings {
  readonly timeZone: string
  readonly currency: string
  /** Every currency money figures list: the school's first (src/api/money/currencies.ts). */
  readonly currencies: readonly string[]
}

/** The school's time zone (default UTC), currency (default USD) and record currencies. */
export async function schoolSettings(db: Db): Promise<SchoolSettings> {
  const [row, currencies] = await Promise.all([
    db
      .selectFrom('school')
      .select(['timezone', 'currency'])
      .where('id', '=', SCHOOL_ID)
      .executeTakeFirst(),
    schoolCurrencies(db),
  ])
  return { timeZone: row?.timezone || 'UTC', currency: row?.currency || 'USD', currencies }
}

/** Instants to read rows between: the windows' span, one day wider on each side. */
function span(...windows: Window[]): { lo: number; hi: number } {
  return {
    lo: Math.min(...windows.map((w) => w.start)) - DAY_MS,
    hi: Math.max(...windows.map((w) => w.end)) + DAY_MS,
  }
}

/** created_at of students who signed up between lo and hi. */
async function signupsBetween(db: Db, lo: number, hi: number): Promise<number[]> {
  const rows = await db
    .selectFrom('students')
    .select('created_at')
    .where('created_at', '>=', lo)
    .where('created_at', '<', hi)
    .execute()
  return rows.map((r) => Number(r.created_at))
}

/** Enrollments started (`started_at`) or completed (`completed_at`) between lo and hi. */
async function enrollmentsBetween(
  db: Db,
  column: 'started_at' | 'completed_at',
  lo: number,
  hi: number,
): Promise<number[]> {
  const rows = await db
    .selectFrom('enrollments')
    .select(['started_at', 'completed_at'])
    .where(column, '>=', lo)
    .where(column, '<', hi)
    .execute()
  return rows.map((r) => Number(r[column]))
}

/** Lesson completions between lo and hi, with their student. */
async function completions(db: Db, lo: number, hi: number) {
  const rows = await db
    .selectFrom('lesson_progress')
    .innerJoin('enrollments', 'enrollments.id', 'lesson_progress.enrollment_id')
    .select(['enrollments.student_id', 'lesson_progress.completed_at'])
    .where('lesson_progress.completed_at', '>=', lo)
    .where('lesson_progress.completed_at', '<', hi)
    .execute()
  return rows.map((r) => ({ student_id: r.student_id, at: Number(r.completed_at) }))
}

const countIn = (values: readonly number[], window: Window) =>
  values.filter((at) => inWindow(at, window)).length

/** GET /analytics/overview: the headline figures of a window (and of the one before it). */
export async function overviewReport(
  db: Db,
  settings: SchoolSettings,
  query: ReportQuery,
  now: number,
) {
  const { currency, currencies } = settings
  const windows = query.compare ? [query.window, previousWindow(query.window)] : [query.window]
  const { lo, hi } = span(...windows)
  const [records, signups, started, completed, activity, subs] = await Promise.all([
    loadMoneyRecords(db, { paidOrRefundedBetween: { lo, hi } }),
    signupsBetween(db, lo, hi),
    enrollmentsBetween(db, 'started_at', lo, hi),
    enrollmentsBetween(db, 'completed_at', lo, hi),
    completions(db, lo, hi),
    loadSubscriptions(db, { startedBefore: hi }),
  ])
  const figures = (window: Window) => {
    const revenue = revenueOf(records, window, currencies)
    const at = snapshotInstant(window, now)
    return {
      from: formatDay(window.from),
      to: formatDay(window.to),
      revenue: { gross: revenue.gross, refunds: revenue.refunds, net: revenue.net },
      orders_count: revenue.orders_count,
      paying_customers: revenue.paying_customers,
      average_order_value: revenue.average_order_value,
      new_students: countIn(signups, window),
      active_students: new Set(
        activity.filter((a) => inWindow(a.at, window)).map((a) => a.student_id),
      ).size,
      enrollments: countIn(started, window),
      course_completions: countIn(completed, window),
      ...subscriptionCounts(subs, at),
      mrr: mrrAt(subs, at, currencies),
      churned_subscriptions: churnedIn(subs, window),
    }
  }
  const { from, to, ...current } = figures(query.window)
  const previous = windows[1]
  return overview.show({
    from,
    to,
    timezone: query.window.timeZone,
    currency,
    currencies,
    ...current,
    ...(previous && { previous: figures(previous) }),
  })
}

/** GET /analytics/revenue: gross, refunds, net and orders per period, every period present. */
export async function revenueReport(db: Db, settings: SchoolSettings, query: ReportQuery) {
  const { byProductType } = query
  const { currency, currencies } = settings
  const { window, interval } = query
  const records = await loadMoneyRecords(db, { paidOrRefundedBetween: span(window) })
  const series = revenueSeries(records, window, interval, currencies)
  const data = series.map((period) => {
    const row = {
      period_start: formatDay(period.period_start),
      gross: period.gross,
      refunds: period.refunds,
      net: period.net,
      orders_count: period.orders_count,
    }
    if (!byProductType) return row
    // The period's part of the window, ranked by product and summed per type and currency.
    const part = periodWindow(window, period.period_start, interval)
    const sums = new Map<string, { gross: PerCurrency; refunds: PerCurrency; net: PerCurrency }>()
    for (const product of productRanking(records, part, currencies)) {
      const sum = sums.get(product.product_type) ?? {
        gross: new PerCurrency(),
        refunds: new PerCurrency(),
        net: new PerCurrency(),
      }
      for (const m of product.gross) sum.gross.add(m.currency, m.amount)
      for (const m of product.refunds) sum.refunds.add(m.currency, m.amount)
      for (const m of product.net) sum.net.add(m.currency, m.amount)
      sums.set(product.product_type, sum)
    }
    const types: Record<string, { gross: Money[]; refunds: Money[]; net: Money[] }> = {}
    for (const [type, sum] of [...sums].sort(([a], [b]) => a.localeCompare(b)))
      types[type] = {
        gross: sum.gross.list(currencies),
        refunds: sum.refunds.list(currencies),
        net: sum.net.list(currencies),
      }
    return { ...row, by_product_type: types }
  })
  return revenueList.show({
    from: formatDay(window.from),
    to: formatDay(window.to),
    timezone: window.timeZone,
    interval,
    currency,
    currencies,
    data,
    has_more: false,
    total_count: data.length,
  })
}

/** The part of `window` covered by the period starting on `start`. */
function periodWindow(window: Window, start: number, interval: Interval): Window {
  return windowOf(
    Math.max(start, window.from),
    Math.min(nextPeriod(start, interval) - 1, window.to),
    window.timeZone,
  )
}

/** GET /analytics/products: revenue per product, ranked. */
export async function productsReport(db: Db, settings: SchoolSettings, query: ReportQuery) {
  const { currency, currencies } = settings
  const records = await loadMoneyRecords(db, { paidOrRefundedBetween: span(query.window) })
  const ranking = sortRanking(
    productRanking(records, query.window, currencies).filter(
      (p) => query.productType === undefined || p.product_type === query.productType,
    ),
    query.sort,
    query.descending,
  )
  return productList.show({
    from: formatDay(query.window.from),
    to: formatDay(query.window.to),
    timezone: query.window.timeZone,
    currency,
    currencies,
    data: ranking.slice(0, query.limit),
    has_more: ranking.length > query.limit,
    total_count: ranking.length,
  })
}

/** The course with this id or slug, or undefined. */
export async function findCourse(db: Db, idOrSlug: string) {
  return db
    .selectFrom('courses')
    .select(['id', 'title'])
    .where((eb) => eb.or([eb('id', '=', idOrSlug), eb('slug', '=', idOrSlug)]))
    .executeTakeFirst()
}

/** GET /analytics/courses/{id}: enrollments, activity and the lesson funnel of one course. */
export async function courseReport(
  db: Db,
  course: { id: string; title: string },
  query: ReportQuery,
) {
  const { window } = query
  const [lessons, enrollments, progress] = await Promise.all([
    db
      .selectFrom('lessons')
      .innerJoin('sections', 'sections.id', 'lessons.section_id')
      .select(['lessons.id', 'lessons.title'])
      .where('lessons.course_id', '=', course.id)
      .where('lessons.status', '=', 'published')
      .orderBy('sections.position')
      .orderBy('lessons.position')
      .orderBy('lessons.id')
      .execute(),
    db
      .selectFrom('enrollments')
      .select(['id', 'student_id', 'status', 'started_at'])
      .where('course_id', '=', course.id)
      .execute(),
    db
      .selectFrom('lesson_progress')
      .innerJoin('enrollments', 'enrollments.id', 'lesson_progress.enrollment_id')
      .select([
        'lesson_progress.enrollment_id',
        'lesson_progress.lesson_id',
        'lesson_progress.completed_at',
      ])
      .where('enrollments.course_id', '=', course.id)
      .execute(),
  ])
  const cohort = enrollments.filter(
    (e) => e.status !== 'revoked' && Number(e.started_at) < window.end,
  )
  const performance = coursePerformance(
    cohort,
    lessons,
    progress.map((p) => ({ ...p, completed_at: Number(p.completed_at) })),
    window,
  )
  return courseView.show({
    course_id: course.id,
    title: course.title,
    from: formatDay(window.from),
    to: formatDay(window.to),
    timezone: window.timeZone,
    enrollments: enrollments.filter((e) => inWindow(Number(e.started_at), window)).length,
    learners: cohort.length,
    active_learners: performance.active_learners,
    completion_rate: performance.completion_rate,
    average_progress: performance.average_progress,
    // Portico stores no course reviews yet: no rating rather than a made-up one.
    average_rating: null,
    lessons: performance.lessons,
  })
}

/** GET /analytics/students: signups, first purchases and active learners per period. */
export async function studentsReport(db: Db, _settings: SchoolSettings, query: ReportQuery) {
  const { window, interval } = query
  const { lo, hi } = span(window)
  const [signups, everyOrder, activity] = await Promise.all([
    signupsBetween(db, lo, hi),
    // Every revenue order up to the window's end: a first purchase is the first ever.
    db
      .selectFrom('orders')
      .select(['id', 'status', 'currency', 'total', 'tax_total', 'paid_at', 'coupon_id'])
      .select(['student_id', 'customer_email'])
      .where('status', 'in', [...REVENUE_STATUSES])
      .where('paid_at', '<', hi)
      .execute(),
    completions(db, lo, hi),
  ])
  const orders = everyOrder.map(
    (o): MoneyOrder => ({
      ...o,
      total: Number(o.total),
      tax_total: Number(o.tax_total),
      paid_at: o.paid_at === null ? null : Number(o.paid_at),
    }),
  )
  const series = studentSeries(
    { signups, firstPurchases: firstPurchases(orders), activity },
    window,
    interval,
  )
  return studentList.show({
    from: formatDay(window.from),
    to: formatDay(window.to),
    timezone: window.timeZone,
    interval,
    data: series.map((p) => ({ ...p, period_start: formatDay(p.period_start) })),
    has_more: false,
    total_count: series.length,
  })
}
