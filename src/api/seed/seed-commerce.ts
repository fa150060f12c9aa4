import type { AppDeps } from '../../app-deps.js'
import type { Db } from '../../storage/schema.js'
import type {
  CouponTable,
  OrderItemTable,
  OrderProductType,
  OrderStatus,
} from '../../storage/tables/commerce.js'
import type { MoneyLine, MoneyRefund } from '../money/records.js'
import { checkRefund } from '../money/refunds.js'

const MINUTE = 60_000
const DAY = 86_400_000
/** Orders are made for what happened in the last ninety days (the analytics window). */
const WINDOW = 90 * DAY
const CURRENCY = 'USD'

interface DemoCoupon {
  readonly slug: string
  readonly code: string
  readonly name: string
  readonly discount:
    | { type: 'percent'; percent_off: number }
    | {
        type: 'fixed_amount'
        amount_off: { amount: number; currency: string }
      }
  readonly products?: readonly { type: string; id: string }[]
  readonly maxRedemptions?: number
  readonly perCustomer?: number
  readonly minimum?: number
  /** Days from now (negative: in the past). */
  readonly startsIn?: number
  readonly expiresIn?: number
  /** Disabled this many days ago (absent: enabled). */
  readonly disabledDaysAgo?: number
  readonly createdDaysAgo: number
}

/** The demo coupons (DOMAIN.md §4.7), one in every status. */
const COUPONS: readonly DemoCoupon[] = [
  {
    slug: 'welcome10',
    code: 'WELCOME10',
    name: 'Welcome: 10 % off a first order',
    discount: { type: 'percent', percent_off: 10 },
    perCustomer: 1,
    createdDaysAgo: 120,
  },
  {
    slug: 'spring25',
    code: 'SPRING25',
    name: 'Spring sale: 25 % off Lightroom',
    discount: { type: 'percent', percent_off: 25 },
    products: [{ type: 'course', id: 'crs_demo_lightroom_editing_masterclass' }],
    startsIn: -45,
    expiresIn: 14,
    createdDaysAgo: 46,
  },
  {
    slug: 'friend20',
    code: 'FRIEND20',
    name: 'Refer a friend: $20 off $60 or more',
    discount: { type: 'fixed_amount', amount_off: { amount: 2000, currency: CURRENCY } },
    maxRedemptions: 50,
    minimum: 6000,
    startsIn: -85,
    createdDaysAgo: 86,
  },
  {
    slug: 'blackfriday',
    code: 'BLACKFRIDAY',
    name: 'Black Friday: 40 % off everything',
    discount: { type: 'percent', percent_off: 40 },
    startsIn: -90,
    expiresIn: -80,
    createdDaysAgo: 95,
  },
  {
    slug: 'vipfree',
    code: 'VIPFREE',
    name: 'A free course for one VIP',
    discount: { type: 'percent', percent_off: 100 },
    maxRedemptions: 1,
    startsIn: -40,
    createdDaysAgo: 40,
  },
  {
    slug: 'summer30',
    code: 'SUMMER30',
    name: 'Summer: 30 % off (starts next month)',
    discount: { type: 'percent', percent_off: 30 },
    startsIn: 30,
    expiresIn: 75,
    createdDaysAgo: 3,
  },
  {
    slug: 'partner15',
    code: 'PARTNER15',
    name: 'Partner promotion (ended early, disabled)',
    discount: { type: 'percent', percent_off: 15 },
    startsIn: -70,
    disabledDaysAgo: 20,
    createdDaysAgo: 71,
  },
]

type Line = Omit<
  OrderItemTable,
  'id' | 'order_id' | 'position' | 'discount_amount' | 'total_amount'
>

interface Customer {
  readonly id: string
  readonly email: string
  readonly name: string
  readonly vip: boolean
}

/** An order before numbering, coupons and amounts. */
interface Draft {
  /** When the checkout completed (paid) or was attempted. */
  readonly at: number
  readonly customer: Customer
  readonly lines: Line[]
  readonly kind: 'course' | 'renewal' | 'subscription' | 'ticket' | 'digital' | 'abandoned'
  readonly outcome: 'paid' | 'failed' | 'expired'
  readonly subscriptionId?: string
  readonly attendeeId?: string
  /** A full refund this many days after payment (canceled attendance, revoked course). */
  refundAfterDays?: number
  partialRefund?: boolean
  /** Tax on the discounted lines (VAT), as a fraction; default none. */
  taxRate?: number
  /** Default the school currency. */
  currency?: string
  /** Refunds chosen by hand: of a line (its index) or of the whole order (null). */
  refundsOf?: (lineTotals: number[], tax: number) => ManualRefund[]
  revoked?: boolean
  coupon?: DemoCoupon
}

interface ManualRefund {
  readonly line: number | null
  readonly amount: number
  readonly afterDays: number
  readonly reason: string
}

const couponId = (c: DemoCoupon) => `cpn_demo_${c.slug}`
const couponBy = (code: string) => COUPONS.find((c) => c.code === code) as DemoCoupon

/** Whether the coupon could be redeemed on the draft, by its own rules at the time. */
function fits(coupon: DemoCoupon, draft: Draft, now: number, uses: Map<string, string[]>) {
  const startsAt = coupon.startsIn === undefined ? -Infinity : now + coupon.startsIn * DAY
  const expiresAt = Math.min(
    coupon.expiresIn === undefined ? Infinity : now + coupon.expiresIn * DAY,
    coupon.disabledDaysAgo === undefined ? Infinity : now - coupon.disabledDaysAgo * DAY,
  )
  if (draft.at < startsAt || draft.at >= expiresAt) return false
  const used = uses.get(coupon.code) ?? []
  if (coupon.maxRedemptions !== undefined && used.length >= coupon.maxRedemptions) return false
  if (coupon.perCustomer !== undefined) {
    const mine = used.filter((email) => email === draft.customer.email).length
    if (mine >= coupon.perCustomer) return false
  }
  const subtotal = draft.lines.reduce((sum, l) => sum + l.unit_amount * l.quantity, 0)
  if (subtotal === 0 || subtotal < (coupon.minimum ?? 0)) return false
  return draft.lines.some((line) => applies(coupon, line))
}

function applies(coupon: DemoCoupon, line: Line): boolean {
  if (!coupon.products) return true
  return coupon.products.some((p) => p.id === line.product_id || p.id === line.event_id)
}

/**
 * The discount of each line: a percentage of each line it applies to, or a fixed amount
 * spread over those lines in proportion (the last takes the rounding), never more than a line.
 */
function discountsOf(coupon: DemoCoupon | undefined, lines: Line[]): number[] {
  const gross = lines.map((l) => l.unit_amount * l.quantity)
  if (!coupon) return gross.map(() => 0)
  const eligible = lines.map((l) => applies(coupon, l))
  if (coupon.discount.type === 'percent') {
    const pct = coupon.discount.percent_off
    return gross.map((g, i) => (eligible[i] ? Math.round((g * pct) / 100) : 0))
  }
  const base = gross.reduce((sum, g, i) => sum + (eligible[i] ? g : 0), 0)
  let left = Math.min(coupon.discount.amount_off.amount, base)
  const lastEligible = eligible.lastIndexOf(true)
  return gross.map((g, i) => {
    if (!eligible[i]) return 0
    const share = i === lastEligible ? left : Math.min(g, Math.round((left * g) / base))
    left -= share
    return share
  })
}

interface Plan {
  id: string
  price?: { amount: number; currency: string }
}

/**
 * The demo school's commerce (DOMAIN.md §4.7): its coupons, one in every status, and about
 * sixty orders over the last ninety days, made from the records that exist — one order per
 * learner's course purchases (enrollments with source `purchase`, at their start), the
 * payments of checkout subscriptions (first payment at the billing anchor, one renewal per
 * period; the past-due and expired ones' renewals failed), paid event tickets bought at
 * registration, preset pack and (free) checklist downloads, and one abandoned checkout. One
 * order is refunded and one partially refunded; coupons are redeemed only where their own
 * rules allow, so their counts add up. Deterministic: no randomness, only index arithmetic.
 */
export async function seedCommerce(db: Db, now: number, _deps: AppDeps): Promise<void> {
  for (const coupon of COUPONS) {
    const created = now - coupon.createdDaysAgo * DAY
    const row: CouponTable = {
      id: couponId(coupon),
      code: coupon.code,
      name: coupon.name,
      description: null,
      discount: JSON.stringify(coupon.discount),
      applies_to: JSON.stringify(
        coupon.products
          ? { type: 'products', products: coupon.products }
          : { type: 'all', products: [] },
      ),
      duration: JSON.stringify({ type: 'once' }),
      max_redemptions: coupon.maxRedemptions ?? null,
      max_redemptions_per_customer: coupon.perCustomer ?? null,
      min_order_amount:
        coupon.minimum === undefined
          ? null
          : JSON.stringify({ amount: coupon.minimum, currency: CURRENCY }),
      starts_at: coupon.startsIn === undefined ? null : now + coupon.startsIn * DAY,
      expires_at: coupon.expiresIn === undefined ? null : now + coupon.expiresIn * DAY,
      enabled: coupon.disabledDaysAgo === undefined ? 1 : 0,
      created_at: created,
      updated_at:
        coupon.disabledDaysAgo === undefined ? created : now - coupon.disabledDaysAgo * DAY,
    }
    await db.insertInto('coupons').values(row).execute()
  }

  const since = now - WINDOW
  const students = await db.selectFrom('students').select(['id', 'email', 'name', 'tags']).execute()
  const customers = new Map<string, Customer>(
    students.map((s) => [
      s.id,
      {
        id: s.id,
        email: s.email,
        name: s.name ?? s.email,
        vip: (JSON.parse(s.tags ?? '[]') as string[]).includes('vip'),
      },
    ]),
  )
  const drafts: Draft[] = []

  // Course purchases: one order per learner and checkout time, one line per course.
  const purchases = await db
    .selectFrom('enrollments')
    .innerJoin('courses', 'courses.id', 'enrollments.course_id')
    .select([
      'enrollments.student_id',
      'enrollments.course_id',
      'enrollments.pricing_plan_id',
      'enrollments.started_at',
      'enrollments.status',
      'courses.title',
      'courses.pricing_plans',
    ])
    .where('enrollments.source', '=', 'purchase')
    .where('enrollments.started_at', '>=', since)
    .where('enrollments.started_at', '<=', now)
    .orderBy('enrollments.started_at')
    .orderBy('enrollments.id')
    .execute()
  for (const enrollment of purchases) {
    const customer = customers.get(enrollment.student_id)
    const plans = JSON.parse(enrollment.pricing_plans) as Plan[]
    const plan = plans.find((p) => p.id === enrollment.pricing_plan_id) ?? plans[0]
    if (!customer || !plan?.price) continue
    const at = Number(enrollment.started_at)
    const line: Line = {
      product_type: 'course',
      product_id: enrollment.course_id,
      price_id: plan.id,
      event_id: null,
      name: enrollment.title,
      quantity: 1,
      unit_amount: plan.price.amount,
    }
    let draft = drafts.find((d) => d.kind === 'course' && d.at === at && d.customer === customer)
    if (draft) draft.lines.push(line)
    else {
      draft = { at, customer, lines: [line], kind: 'course', outcome: 'paid' }
      drafts.push(draft)
    }
    if (enrollment.status === 'revoked') draft.revoked = true
  }

  // Subscription payments: the first at the billing anchor, then one per period.
  const subscriptions = await db
    .selectFrom('subscriptions')
    .innerJoin('membership_plans', 'membership_plans.id', 'subscriptions.plan_id')
    .select([
      'subscriptions.id',
      'subscriptions.student_id',
      'subscriptions.plan_id',
      'subscriptions.price_id',
      'subscriptions.status',
      'subscriptions.amount',
      'subscriptions.interval',
      'subscriptions.interval_count',
      'subscriptions.started_at',
      'subscriptions.trial_ends_at',
      'subscriptions.current_period_start',
      'subscriptions.current_period_end',
      'membership_plans.name',
    ])
    .where('subscriptions.source', '=', 'checkout')
    .orderBy('subscriptions.started_at')
    .execute()
  for (const sub of subscriptions) {
    const customer = customers.get(sub.student_id)
    if (!customer || sub.status === 'trialing' || sub.amount <= 0) continue
    const line: Line = {
      product_type: 'membership_plan',
      product_id: sub.plan_id,
      price_id: sub.price_id,
      event_id: null,
      name: sub.name,
      quantity: 1,
      unit_amount: sub.amount,
    }
    const anchor = Number(sub.trial_ends_at ?? sub.started_at)
    const months = sub.interval
      ? (sub.interval === 'year' ? 12 : 1) * Number(sub.interval_count ?? 1)
      : 0
    const periodStart = Number(sub.current_period_start)
    const charges: Array<{ at: number; outcome: 'paid' | 'failed' }> = []
    if (sub.status === 'incomplete') charges.push({ at: anchor, outcome: 'failed' })
    else if (months === 0) charges.push({ at: anchor, outcome: 'paid' })
    else {
      for (let k = 0; ; k += 1) {
        const at = addMonths(anchor, k * months)
        if (at > periodStart + MINUTE) break
        // The past-due subscription's renewal at the start of its current period failed.
        const failed = sub.status === 'past_due' && at >= periodStart - MINUTE && k > 0
        charges.push({ at, outcome: failed ? 'failed' : 'paid' })
      }
      // An expired subscription's renewal at the end of its last period failed.
      if (sub.status === 'expired' && sub.current_period_end !== null)
        charges.push({ at: Number(sub.current_period_end), outcome: 'failed' })
    }
    for (const [k, charge] of charges.entries())
      if (charge.at >= since && charge.at <= now)
        drafts.push({
          at: charge.at,
          customer,
          lines: [{ ...line }],
          kind: k === 0 ? 'subscription' : 'renewal',
          outcome: charge.outcome,
          subscriptionId: sub.id,
        })
  }

  // Paid event tickets, bought at registration; a canceled attendance was refunded.
  const attendees = await db
    .selectFrom('event_attendees')
    .innerJoin('event_tickets', 'event_tickets.id', 'event_attendees.ticket_id')
    .innerJoin('events', 'events.id', 'event_attendees.event_id')
    .select([
      'event_attendees.id',
      'event_attendees.student_id',
      'event_attendees.name as attendee_name',
      'event_attendees.email',
      'event_attendees.status',
      'event_attendees.registered_at',
      'event_attendees.updated_at',
      'event_tickets.id as ticket_id',
      'event_tickets.name as ticket_name',
      'event_tickets.price_amount',
      'events.id as event_id',
      'events.title',
      'events.status as event_status',
    ])
    .where('event_attendees.source', '=', 'purchase')
    .where('event_tickets.price_amount', '>', 0)
    .orderBy('event_attendees.registered_at')
    .orderBy('event_attendees.id')
    .execute()
  for (const attendee of attendees) {
    const at = Number(attendee.registered_at)
    if (at < since || at > now) continue
    const customer = (attendee.student_id && customers.get(attendee.student_id)) || {
      id: '',
      email: attendee.email,
      name: attendee.attendee_name,
      vip: false,
    }
    const canceled = attendee.status === 'canceled' || attendee.event_status === 'canceled'
    drafts.push({
      at,
      customer,
      lines: [
        {
          product_type: 'event_ticket',
          product_id: attendee.ticket_id,
          price_id: null,
          event_id: attendee.event_id,
          name: `${attendee.title}: ${attendee.ticket_name}`,
          quantity: 1,
          unit_amount: Number(attendee.price_amount),
        },
      ],
      kind: 'ticket',
      outcome: 'paid',
      attendeeId: attendee.id,
      ...(canceled && {
        refundAfterDays: Math.max(0, (Number(attendee.updated_at) - at) / DAY),
      }),
    })
  }

  // Downloads: the preset pack sells to recent learners; the free checklist is a lead magnet.
  const products = await db
    .selectFrom('digital_products')
    .select(['id', 'title', 'price_amount'])
    .where('id', 'in', ['dpr_demo_lightroom_preset_pack', 'dpr_demo_gear_checklist'])
    .execute()
  const sales: Array<[string, string, number]> = [
    ['dpr_demo_lightroom_preset_pack', 'stu_demo_13', 52],
    ['dpr_demo_gear_checklist', 'stu_demo_20', 41],
    ['dpr_demo_lightroom_preset_pack', 'stu_demo_31', 16],
    ['dpr_demo_gear_checklist', 'stu_demo_34', 11],
    ['dpr_demo_lightroom_preset_pack', 'stu_demo_36', 8],
    ['dpr_demo_lightroom_preset_pack', 'stu_demo_38', 1],
  ]
  for (const [productId, studentId, daysAgo] of sales) {
    const product = products.find((p) => p.id === productId)
    const customer = customers.get(studentId)
    if (!product || !customer) continue
    drafts.push({
      at: now - daysAgo * DAY - 3 * 60 * MINUTE,
      customer,
      lines: [
        {
          product_type: 'digital_product',
          product_id: product.id,
          price_id: null,
          event_id: null,
          name: product.title,
          quantity: 1,
          unit_amount: Number(product.price_amount),
        },
      ],
      kind: 'digital',
      outcome: 'paid',
    })
  }

  // An abandoned checkout: a learner who looked at Portrait Lighting and never paid.
  const portrait = await db
    .selectFrom('courses')
    .select(['id', 'title', 'pricing_plans'])
    .where('id', '=', 'crs_demo_portrait_lighting')
    .executeTakeFirst()
  const browser = customers.get('stu_demo_33')
  const portraitPlan = portrait && (JSON.parse(portrait.pricing_plans) as Plan[])[0]
  if (portrait && browser && portraitPlan?.price)
    drafts.push({
      at: now - 5 * DAY,
      customer: browser,
      lines: [
        {
          product_type: 'course',
          product_id: portrait.id,
          price_id: portraitPlan.id,
          event_id: null,
          name: portrait.title,
          quantity: 1,
          unit_amount: portraitPlan.price.amount,
        },
      ],
      kind: 'abandoned',
      outcome: 'expired',
    })

  drafts.push(...moneyRuleDrafts(products, customers, now))

  drafts.sort((a, b) => a.at - b.at || a.customer.email.localeCompare(b.customer.email))

  // Refunds: a canceled attendance if there is one, else a revoked course; and one partial.
  if (!drafts.some((d) => d.refundAfterDays !== undefined)) {
    const revoked = drafts.find((d) => d.kind === 'course' && d.revoked)
    if (revoked) revoked.refundAfterDays = 6
  }
  const partial = [...drafts]
    .reverse()
    .find((d) => d.kind === 'course' && d.lines.length > 1 && d.refundAfterDays === undefined)
  if (partial) partial.partialRefund = true

  // Coupons, in order: each where its own rules let it, so redemptions add up.
  const uses = new Map<string, string[]>()
  let seq = 0
  for (const draft of drafts) {
    if (draft.coupon) {
      // Chosen by hand (moneyRuleDrafts): counted as a use, so the coupon's limits hold.
      uses.set(draft.coupon.code, [...(uses.get(draft.coupon.code) ?? []), draft.customer.email])
      continue
    }
    if (draft.outcome !== 'paid' || draft.kind === 'renewal') continue
    if (draft.refundAfterDays !== undefined || draft.partialRefund) continue
    seq += 1
    const choice = [
      draft.kind === 'course' && draft.customer.vip ? couponBy('VIPFREE') : undefined,
      couponBy('BLACKFRIDAY'),
      couponBy('SPRING25'),
      seq % 4 === 0 ? couponBy('PARTNER15') : undefined,
      seq % 3 !== 0 && (uses.get('FRIEND20')?.length ?? 0) < 12 ? couponBy('FRIEND20') : undefined,
      seq % 3 === 0 ? couponBy('WELCOME10') : undefined,
    ].find((c) => c && fits(c, draft, now, uses) && (c.code !== 'PARTNER15' || !uses.has(c.code)))
    if (!choice) continue
    draft.coupon = choice
    uses.set(choice.code, [...(uses.get(choice.code) ?? []), draft.customer.email])
  }

  for (const [index, draft] of drafts.entries()) {
    const number = String(1001 + index)
    const id = `ord_demo_${number}`
    const discounts = discountsOf(draft.coupon, draft.lines)
    const gross = draft.lines.map((l) => l.unit_amount * l.quantity)
    const subtotal = gross.reduce((a, b) => a + b, 0)
    const discountTotal = discounts.reduce((a, b) => a + b, 0)
    const lineTotals = gross.map((g, i) => g - (discounts[i] ?? 0))
    const tax = Math.round((subtotal - discountTotal) * (draft.taxRate ?? 0))
    const total = subtotal - discountTotal + tax
    const refunds: Array<{ amount: number; at: number; reason: string; line: number | null }> = []
    if (draft.refundsOf)
      for (const refund of draft.refundsOf(lineTotals, tax))
        refunds.push({ ...refund, at: Math.min(now, draft.at + refund.afterDays * DAY) })
    else if (total > 0 && draft.outcome === 'paid') {
      if (draft.refundAfterDays !== undefined)
        refunds.push({
          amount: total,
          at: Math.min(now, draft.at + draft.refundAfterDays * DAY),
          reason: draft.kind === 'ticket' ? 'Could not attend' : 'Requested within 14 days',
          line: null,
        })
      else if (draft.partialRefund) {
        const last = draft.lines.length - 1
        refunds.push({
          amount: (gross[last] ?? 0) - (discounts[last] ?? 0),
          at: Math.min(now, draft.at + 3 * DAY),
          reason: `Bought ${draft.lines[last]?.name} by mistake`,
          // The refund names its line: the product figures charge that course alone.
          line: last,
        })
      }
    }
    const refunded = refunds.reduce((a, r) => a + r.amount, 0)
    const status: OrderStatus =
      draft.outcome !== 'paid'
        ? draft.outcome
        : total === 0
          ? 'free'
          : refunded === 0
            ? 'paid'
            : refunded >= total
              ? 'refunded'
              : 'partially_refunded'
    const paypal = index % 4 === 3
    const payment =
      status === 'free'
        ? { provider: 'manual', method: 'none', provider_reference: null }
        : paypal
          ? { provider: 'paypal', method: 'wallet', provider_reference: `PAYID-DEMO-${number}` }
          : {
              provider: 'stripe',
              method: 'card',
              provider_reference: `pi_demo_${number}`,
              last4: String(4242 + ((index * 1117) % 5000)).padStart(4, '0'),
            }
    const created = draft.at - 4 * MINUTE
    const settled = draft.outcome === 'paid' ? draft.at : null
    const lastChange = Math.max(draft.at, ...refunds.map((r) => r.at))
    await db
      .insertInto('orders')
      .values({
        id,
        number,
        status,
        student_id: draft.customer.id || null,
        customer_email: draft.customer.email,
        customer_name: draft.customer.name,
        currency: draft.currency ?? CURRENCY,
        subtotal,
        discount_total: discountTotal,
        tax_total: tax,
        total,
        amount_refunded: refunded,
        coupon_id: draft.coupon ? couponId(draft.coupon) : null,
        coupon_code: draft.coupon?.code ?? null,
        payment: JSON.stringify(payment),
        subscription_id: draft.subscriptionId ?? null,
        source: 'checkout',
        paid_at: settled,
        created_at: created,
        updated_at: lastChange,
      })
      .execute()
    for (const [position, line] of draft.lines.entries())
      await db
        .insertInto('order_items')
        .values({
          ...line,
          id: `oit_demo_${number}_${position + 1}`,
          order_id: id,
          position,
          product_type: line.product_type as OrderProductType,
          discount_amount: discounts[position] ?? 0,
          total_amount: (gross[position] ?? 0) - (discounts[position] ?? 0),
        })
        .execute()
    const written: MoneyLine[] = draft.lines.map((line, position) => ({
      id: `oit_demo_${number}_${position + 1}`,
      order_id: id,
      position,
      product_type: line.product_type,
      product_id: line.product_id,
      name: line.name,
      quantity: line.quantity,
      total_amount: lineTotals[position] ?? 0,
    }))
    const earlier: MoneyRefund[] = []
    for (const [k, refund] of refunds.entries()) {
      const row: MoneyRefund = {
        id: `rfd_demo_${number}${k > 0 ? `_${k + 1}` : ''}`,
        order_id: id,
        order_line_id: refund.line === null ? null : (written[refund.line]?.id ?? null),
        amount: refund.amount,
        created_at: refund.at,
      }
      // The writer's check: a refund's line belongs to its order, and no more is refunded
      // than was paid (src/api/money/refunds.ts).
      const paidOrder = { id, status: 'paid', total, tax_total: tax }
      const problems = checkRefund(paidOrder, written, earlier, row)
      if (problems.length > 0)
        throw new Error(`demo refund ${row.id}: ${problems.map((p) => p.message).join('; ')}`)
      earlier.push(row)
      await db
        .insertInto('refunds')
        .values({ ...row, reason: refund.reason })
        .execute()
    }
    if (draft.attendeeId)
      await db
        .updateTable('event_attendees')
        .set({ order_id: id })
        .where('id', '=', draft.attendeeId)
        .execute()
    // Drafts are in time order, so the last write is the latest order.
    if (draft.subscriptionId)
      await db
        .updateTable('subscriptions')
        .set({ latest_order_id: id })
        .where('id', '=', draft.subscriptionId)
        .execute()
  }
}

/**
 * Orders that exercise every money rule (src/api/money), with hand-chosen amounts:
 * - a taxed order (20 % VAT) of several lines with a coupon, partly refunded twice: once for
 *   half of its digital-product line (the refund names the line, so only that product is
 *   charged, with its share of the tax), once by a goodwill amount naming no line, which
 *   splits unevenly over the lines and the tax (largest remainder);
 * - an order in a second currency (EUR), which every figure lists apart from the dollars.
 */
function moneyRuleDrafts(
  products: ReadonlyArray<{ id: string; title: string; price_amount: number }>,
  customers: ReadonlyMap<string, Customer>,
  now: number,
): Draft[] {
  const preset = products.find((p) => p.id === 'dpr_demo_lightroom_preset_pack')
  const checklist = products.find((p) => p.id === 'dpr_demo_gear_checklist')
  const taxed = customers.get('stu_demo_27')
  const european = customers.get('stu_demo_29')
  if (!preset || !checklist || !taxed || !european) return []
  const digital = (product: { id: string; title: string }, unit: number): Line => ({
    product_type: 'digital_product',
    product_id: product.id,
    price_id: null,
    event_id: null,
    name: product.title,
    quantity: 1,
    unit_amount: unit,
  })
  return [
    {
      at: now - 26 * DAY - 5 * 60 * MINUTE,
      customer: taxed,
      lines: [digital(preset, Number(preset.price_amount)), digital(checklist, 0)],
      kind: 'digital',
      outcome: 'paid',
      coupon: couponBy('WELCOME10'),
      taxRate: 0.2,
      refundsOf: (lineTotals, tax) => {
        const presetLine = lineTotals[0] ?? 0
        return [
          {
            line: 0,
            amount: Math.round((presetLine + tax) / 2),
            afterDays: 2,
            reason: 'Half the presets did not suit the camera',
          },
          { line: null, amount: 101, afterDays: 5, reason: 'Goodwill for a late download link' },
        ]
      },
    },
    {
      at: now - 33 * DAY - 2 * 60 * MINUTE,
      customer: european,
      lines: [digital(preset, 2200)],
      kind: 'digital',
      outcome: 'paid',
      currency: 'EUR',
    },
  ]
}

/** Calendar months in UTC, as the memberships seed counts billing periods. */
function addMonths(ms: number, months: number): number {
  const date = new Date(ms)
  date.setUTCMonth(date.getUTCMonth() + months)
  return date.getTime()
}
