/**
 * The analytics reports (DOMAIN.md §4.3.6): reads the window's rows with plain SQL filters
 * (both engines) and leaves the arithmetic to figures.ts. Schools are small, so a report
 * reads the rows of its window (one day wider on each side, for time zones) and counts them
 * in TypeScript, where the definitions are easier to read and test.
 */
import { SCHOOL_ID } from '../../people/first-start.js'
import type { Db } from '../../storage/schema.js'
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
  coursePerformance,
  firstPurchases,
  productRanking,
  REVENUE_STATUSES,
  type RefundRow,
  type RevenueOrder,
  revenueOf,
  revenueSeries,
  snapshotInstant,
  sortRanking,
  studentSeries,
  subscriptionFigures,
} from './figures.js'
import type { ReportQuery } from './params.js'

export interface SchoolSettings {
  readonly timeZone: string
  readonly currency: string
}

/** The school's time zone (default UTC) and currency (default USD). */
export async function schoolSettings(db: Db): Promise<SchoolSettings> {
  const row = await db
    .selectFrom('school')
    .select(['timezone', 'currency'])
    .where('id', '=', SCHOOL_ID)
    .executeTakeFirst()
  return { timeZone: row?.timezone || 'UTC', currency: row?.currency || 'USD' }
}

const money = (amount: number, currency: string) => ({ amount, currency })

/** Instants to read rows between: the windows' span, one day wider on each side. */
function span(...windows: Window[]): { lo: number; hi: number } {
  return {
    lo: Math.min(...windows.map((w) => w.start)) - DAY_MS,
    hi: Math.max(...windows.map((w) => w.end)) + DAY_MS,
  }
}

/** Revenue orders in `currency` paid between lo and hi. */
async function revenueOrders(db: Db, currency: string, lo: number, hi: number) {
  const rows = await db
    .selectFrom('orders')
    .select(['id', 'student_id', 'customer_email', 'total', 'paid_at'])
    .where('status', 'in', [...REVENUE_STATUSES])
    .where('currency', '=', currency)
    .where('paid_at', '>=', lo)
    .where('paid_at', '<', hi)
    .execute()
  return rows.flatMap((r): RevenueOrder[] =>
    r.paid_at === null ? [] : [{ ...r, total: Number(r.total), paid_at: Number(r.paid_at) }],
  )
}

/** Refunds created between lo and hi of orders in `currency`. */
async function refundsBetween(db: Db, currency: string, lo: number, hi: number) {
  const rows = await db
    .selectFrom('refunds')
    .innerJoin('orders', 'orders.id', 'refunds.order_id')
    .select(['refunds.order_id', 'refunds.amount', 'refunds.created_at'])
    .where('orders.currency', '=', currency)
    .where('refunds.created_at', '>=', lo)
    .where('refunds.created_at', '<', hi)
    .execute()
  return rows.map(
    (r): RefundRow => ({
      order_id: r.order_id,
      amount: Number(r.amount),
      created_at: Number(r.created_at),
    }),
  )
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
  const { currency } = settings
  const windows = query.compare ? [query.window, previousWindow(query.window)] : [query.window]
  const { lo, hi } = span(...windows)
  const [orders, refunds, signups, started, completed, activity, subscriptions] = await Promise.all(
    [
      revenueOrders(db, currency, lo, hi),
      refundsBetween(db, currency, lo, hi),
      signupsBetween(db, lo, hi),
      enrollmentsBetween(db, 'started_at', lo, hi),
      enrollmentsBetween(db, 'completed_at', lo, hi),
      completions(db, lo, hi),
      db
        .selectFrom('subscriptions')
        .select([
          'status',
          'amount',
          'currency',
          'interval',
          'interval_count',
          'source',
          'started_at',
          'trial_ends_at',
          'ended_at',
        ])
        .where('started_at', '<', hi)
        .execute(),
    ],
  )
  const subs = subscriptions.map((s) => ({
    ...s,
    amount: Number(s.amount),
    interval_count: s.interval_count === null ? null : Number(s.interval_count),
    started_at: Number(s.started_at),
    trial_ends_at: s.trial_ends_at === null ? null : Number(s.trial_ends_at),
    ended_at: s.ended_at === null ? null : Number(s.ended_at),
  }))
  const figures = (window: Window) => {
    const revenue = revenueOf(orders, refunds, window)
    const subsAt = subscriptionFigures(subs, window, snapshotInstant(window, now), currency)
    return {
      from: formatDay(window.from),
      to: formatDay(window.to),
      revenue: {
        gross: money(revenue.gross, currency),
        refunds: money(revenue.refunds, currency),
        net: money(revenue.net, currency),
      },
      orders_count: revenue.orders_count,
      paying_customers: revenue.paying_customers,
      average_order_value: money(revenue.average_order_value, currency),
      new_students: countIn(signups, window),
      active_students: new Set(
        activity.filter((a) => inWindow(a.at, window)).map((a) => a.student_id),
      ).size,
      enrollments: countIn(started, window),
      course_completions: countIn(completed, window),
      active_subscriptions: subsAt.active_subscriptions,
      mrr: money(subsAt.mrr, currency),
      churned_subscriptions: subsAt.churned_subscriptions,
    }
  }
  const { from, to, ...current } = figures(query.window)
  const previous = windows[1]
  return {
    object: 'analytics_overview',
    from,
    to,
    timezone: query.window.timeZone,
    currency,
    ...current,
    ...(previous && { previous: figures(previous) }),
  }
}

/** The lines of the given orders. */
async function linesOf(db: Db, orderIds: readonly string[]) {
  const lines = []
  // Chunks keep the IN list well under either engine's parameter limit.
  for (let i = 0; i < orderIds.length; i += 500) {
    const chunk = orderIds.slice(i, i + 500)
    lines.push(
      ...(await db
        .selectFrom('order_items')
        .select([
          'order_id',
          'position',
          'product_type',
          'product_id',
          'name',
          'quantity',
          'unit_amount',
          'total_amount',
        ])
        .where('order_id', 'in', chunk)
        .execute()),
    )
  }
  return lines.map((l) => ({
    ...l,
    position: Number(l.position),
    quantity: Number(l.quantity),
    total_amount: Number(l.total_amount),
  }))
}

/** Revenue rows of a window: its orders, their refunds in it, and the lines of both. */
async function revenueRows(db: Db, currency: string, window: Window, withLines: boolean) {
  const { lo, hi } = span(window)
  const [orders, refunds] = await Promise.all([
    revenueOrders(db, currency, lo, hi),
    refundsBetween(db, currency, lo, hi),
  ])
  if (!withLines) return { orders, refunds, lines: [] }
  const ids = [...new Set([...orders.map((o) => o.id), ...refunds.map((r) => r.order_id)])]
  return { orders, refunds, lines: await linesOf(db, ids) }
}

/** GET /analytics/revenue: gross, refunds, net and orders per period, every period present. */
export async function revenueReport(db: Db, settings: SchoolSettings, query: ReportQuery) {
  const { byProductType } = query
  const { currency } = settings
  const { window, interval } = query
  const { orders, refunds, lines } = await revenueRows(db, currency, window, byProductType)
  const series = revenueSeries(orders, refunds, window, interval)
  const data = series.map((period) => {
    const row = {
      period_start: formatDay(period.period_start),
      gross: money(period.gross, currency),
      refunds: money(period.refunds, currency),
      net: money(period.net, currency),
      orders_count: period.orders_count,
    }
    if (!byProductType) return row
    // The period's part of the window, ranked by product and summed per type.
    const part = periodWindow(window, period.period_start, interval)
    const types: Record<string, { gross: unknown; refunds: unknown; net: unknown }> = {}
    const sums = new Map<string, { gross: number; refunds: number; net: number }>()
    for (const product of productRanking(orders, lines, refunds, part)) {
      const sum = sums.get(product.product_type) ?? { gross: 0, refunds: 0, net: 0 }
      sum.gross += product.gross
      sum.refunds += product.refunds
      sum.net += product.net
      sums.set(product.product_type, sum)
    }
    for (const [type, sum] of [...sums].sort(([a], [b]) => a.localeCompare(b)))
      types[type] = {
        gross: money(sum.gross, currency),
        refunds: money(sum.refunds, currency),
        net: money(sum.net, currency),
      }
    return { ...row, by_product_type: types }
  })
  return {
    object: 'list',
    from: formatDay(window.from),
    to: formatDay(window.to),
    timezone: window.timeZone,
    interval,
    currency,
    data,
    has_more: false,
    total_count: data.length,
  }
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
  const { currency } = settings
  const { orders, refunds, lines } = await revenueRows(db, currency, query.window, true)
  const ranking = sortRanking(
    productRanking(orders, lines, refunds, query.window).filter(
      (p) => query.productType === undefined || p.product_type === query.productType,
    ),
    query.sort,
    query.descending,
  )
  return {
    object: 'list',
    from: formatDay(query.window.from),
    to: formatDay(query.window.to),
    timezone: query.window.timeZone,
    currency,
    data: ranking.slice(0, query.limit).map((p) => ({
      object: 'product_revenue',
      product_type: p.product_type,
      product_id: p.product_id,
      name: p.name,
      units: p.units,
      gross: money(p.gross, currency),
      refunds: money(p.refunds, currency),
      net: money(p.net, currency),
    })),
    has_more: ranking.length > query.limit,
    total_count: ranking.length,
  }
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
  return {
    object: 'course_analytics',
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
  }
}

/** GET /analytics/students: signups, first purchases and active learners per period. */
export async function studentsReport(db: Db, settings: SchoolSettings, query: ReportQuery) {
  const { window, interval } = query
  const { lo, hi } = span(window)
  const [signups, everyOrder, activity] = await Promise.all([
    signupsBetween(db, lo, hi),
    // Every revenue order up to the window's end: a first purchase is the first ever.
    db
      .selectFrom('orders')
      .select(['id', 'student_id', 'customer_email', 'total', 'paid_at'])
      .where('status', 'in', [...REVENUE_STATUSES])
      .where('currency', '=', settings.currency)
      .where('paid_at', '<', hi)
      .execute(),
    completions(db, lo, hi),
  ])
  const orders = everyOrder.flatMap((o): RevenueOrder[] =>
    o.paid_at === null ? [] : [{ ...o, total: Number(o.total), paid_at: Number(o.paid_at) }],
  )
  const series = studentSeries(
    { signups, firstPurchases: firstPurchases(orders), activity },
    window,
    interval,
  )
  return {
    object: 'list',
    from: formatDay(window.from),
    to: formatDay(window.to),
    timezone: window.timeZone,
    interval,
    data: series.map((p) => ({ ...p, period_start: formatDay(p.period_start) })),
    has_more: false,
    total_count: series.length,
  }
}
