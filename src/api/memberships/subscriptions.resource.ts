import { conflict, type FieldError, timestamp, validationFailed } from '../conventions.js'
import {
  boolean,
  enumeration,
  instant,
  integer,
  type Row,
  reference,
  text,
} from '../framework/fields.js'
import { money } from '../framework/money.js'
import { defineResource, type ResourceContext, type RowOf } from '../framework/resource.js'
import { RUNNING_STATUSES } from '../money/subscriptions.js'
import { lengthensAccess, refuseBlockedLearner } from '../people/blocked-learners.js'
import { schoolWide } from '../people/owners.js'

const DAY = 86_400_000

/** Statuses of a subscription that still gives access: those not ended (src/api/money). */
const LIVE: readonly string[] = RUNNING_STATUSES
const ENDED = ['canceled', 'expired']

async function update(
  context: ResourceContext,
  row: { readonly id: string },
  changes: Row,
): Promise<string> {
  await context.db
    .updateTable('subscriptions')
    .set({ ...changes, updated_at: context.now })
    .where('id', '=', row.id)
    .execute()
  return row.id
}

/**
 * When the subscription charges next: the end of the trial or of the current period, for a
 * paid recurring subscription that will renew. Null for lifetime and fixed-term prices (no
 * interval), manual grants, ended subscriptions and those cancelling at period end.
 */
function nextChargeAt(row: RowOf<'subscriptions'>): string | null {
  if (row.source === 'manual' || row.interval === null || row.cancel_at_period_end) return null
  if (!LIVE.includes(row.status)) return null
  const at = row.status === 'trialing' ? row.trial_ends_at : row.current_period_end
  return typeof at === 'number' ? timestamp(at) : null
}

/**
 * `ends_at` (grant and PATCH) is the manual subscription's period end under the name the
 * grant uses; both members write `current_period_end`.
 */
function takeEndsAt(values: Row, now: number): void {
  const errors: FieldError[] = []
  if (
    values.ends_at !== undefined &&
    values.current_period_end !== undefined &&
    values.ends_at !== values.current_period_end
  )
    errors.push({
      field: 'ends_at',
      code: 'conflict',
      message: 'ends_at and current_period_end name the same date; give one',
    })
  if (values.ends_at !== undefined) values.current_period_end = values.ends_at
  delete values.ends_at
  const end = values.current_period_end
  if (typeof end === 'number' && end <= now)
    errors.push({
      field: 'ends_at',
      code: 'range',
      message: 'ends_at must be in the future (cancel the subscription to end it now)',
    })
  if (errors.length > 0) throw validationFailed(errors)
}

/**
 * Subscriptions to membership plans (DOMAIN.md §4.3.12). Paid ones come from checkout; the
 * API grants manual (comp) ones, cancels at period end (a second cancel ends it now) and
 * resumes while cancelling. Never public, never deleted.
 */
export const subscriptions = defineResource({
  object: 'subscription',
  collection: 'subscriptions',
  table: 'subscriptions',
  idPrefix: 'sub',
  summary: 'Subscriptions of students to membership plans',
  scopes: { read: 'subscriptions:read', write: 'subscriptions:write' },
  // roles.ts grants subscriptions:write to owners and admins only (editors and TAs read).
  writeRoles: ['owner', 'admin'],
  ownership: schoolWide(
    'Subscriptions are the school’s billing records; only owners and admins change them',
  ),
  operations: ['list', 'get', 'create', 'update'],
  fields: {
    student_id: reference('stu', { required: true, immutable: true, filter: true }),
    plan_id: reference('mpl', { required: true, immutable: true, filter: true }),
    price_id: reference('mpp', {
      immutable: true,
      filter: true,
      description:
        "The plan price it signed up with (on a grant: default the plan's first active price)",
    }),
    status: enumeration(['trialing', 'active', 'past_due', 'canceled', 'expired', 'incomplete'], {
      readOnly: true,
      filter: true,
    }),
    amount: money({
      readOnly: true,
      description:
        'What each period costs this subscriber (0 for manual grants); kept when the plan’s prices change',
    }),
    interval: enumeration(['month', 'year'], { readOnly: true, nullable: true }),
    interval_count: integer({ readOnly: true, nullable: true, min: 1, max: 12 }),
    source: enumeration(['checkout', 'manual', 'import'], { readOnly: true, filter: true }),
    started_at: instant({ readOnly: true, filter: true, sortable: true }),
    trial_ends_at: instant({ readOnly: true, nullable: true }),
    current_period_start: instant({ readOnly: true }),
    current_period_end: instant({
      nullable: true,
      filter: true,
      description: 'null: no end (lifetime). Writable on manual grants only',
    }),
    cancel_at_period_end: boolean({ readOnly: true, filter: true }),
    canceled_at: instant({ readOnly: true, nullable: true }),
    cancellation_reason: text({ readOnly: true, nullable: true, max: 500 }),
    ended_at: instant({ readOnly: true, nullable: true }),
    latest_order_id: reference('ord', { readOnly: true, nullable: true }),
    next_charge_at: instant({
      readOnly: true,
      nullable: true,
      description:
        'When it charges next: the end of the trial or of the current period of a paid recurring subscription that will renew; null otherwise',
    }),
    ends_at: instant({
      nullable: true,
      description:
        'When access ends if nothing changes: the period end of a manual grant, a fixed term or a cancelling subscription, the end of an ended one; null while it renews or for lifetime. Writable (as current_period_end) on manual grants',
    }),
  },
  filters: {
    renews_before: {
      field: instant(),
      reads: ['current_period_end', 'status', 'source', 'cancel_at_period_end', 'interval'],
      description: 'Subscriptions that will charge again before this time',
      where: (eb, _op, value) =>
        eb.and([
          eb('current_period_end', '<', value),
          eb('status', 'in', LIVE),
          eb('source', '<>', 'manual'),
          eb('cancel_at_period_end', '=', 0),
          eb('interval', 'is not', null),
        ]),
    },
  },
  computed: (row) => ({
    amount: { amount: Number(row.amount), currency: row.currency },
    ends_at: ENDED.includes(row.status)
      ? timestamp(Number(row.ended_at ?? row.current_period_end ?? row.updated_at))
      : typeof row.current_period_end === 'number' &&
          (row.source === 'manual' || row.interval === null || row.cancel_at_period_end)
        ? timestamp(row.current_period_end)
        : null,
    next_charge_at: nextChargeAt(row),
  }),
  async beforeCreate(context, values) {
    const { db, now } = context
    const errors: FieldError[] = []
    const [student, plan] = await Promise.all([
      db
        .selectFrom('students')
        .select('id')
        .where('id', '=', values.student_id!)
        .executeTakeFirst(),
      db
        .selectFrom('membership_plans')
        .select(['id', 'status', 'billing_type'])
        .where('id', '=', values.plan_id!)
        .executeTakeFirst(),
    ])
    if (!student)
      errors.push({ field: 'student_id', code: 'not_found', message: 'no student with this id' })
    if (!plan)
      errors.push({
        field: 'plan_id',
        code: 'not_found',
        message: 'no membership plan with this id',
      })
    let price: RowOf<'membership_plan_prices'> | undefined
    if (plan) {
      let prices = db
        .selectFrom('membership_plan_prices')
        .selectAll()
        .where('plan_id', '=', plan.id)
      prices =
        typeof values.price_id === 'string'
          ? prices.where('id', '=', values.price_id)
          : prices.where('active', '=', 1).orderBy('created_at').orderBy('id')
      price = await prices.executeTakeFirst()
      if (typeof values.price_id === 'string' && !price?.active)
        errors.push({
          field: 'price_id',
          code: 'not_found',
          message: 'no active price of this plan with this id',
        })
    }
    if (errors.length > 0) throw validationFailed(errors)
    if (plan?.status !== 'active')
      throw conflict(
        `the plan is ${plan?.status}: only an active plan takes new subscriptions${plan?.status === 'draft' ? ' (publish it first)' : ''}`,
      )
    await refuseBlockedLearner(context, { student_id: values.student_id! })
    if (!price) throw conflict('the plan has no active price')
    const live = await db
      .selectFrom('subscriptions')
      .select('id')
      .where('student_id', '=', values.student_id!)
      .where('plan_id', '=', values.plan_id!)
      .where('status', 'in', RUNNING_STATUSES)
      .executeTakeFirst()
    if (live)
      throw conflict(
        `the student already has a live subscription to this plan (${live.id}); change that one instead`,
      )
    takeEndsAt(values, now)
    // A fixed term runs from today; a grant otherwise lasts until ends_at, or with no end.
    const fixedEnd =
      plan.billing_type !== 'fixed_term'
        ? null
        : price.access_days !== null
          ? now + Number(price.access_days) * DAY
          : Date.parse(`${price.ends_on}T23:59:59Z`)
    if (fixedEnd !== null && fixedEnd <= now)
      throw conflict('the fixed term of this price has already ended; grant another price')
    Object.assign(values, {
      price_id: price.id,
      status: 'active',
      // A manual grant is a comp: no charge, no order, never revenue (DOMAIN.md §4.6), so its
      // amount is 0 whatever the price costs, and it does not renew (no interval).
      amount: 0,
      currency: price.currency,
      interval: null,
      interval_count: null,
      source: 'manual',
      started_at: now,
      trial_ends_at: null,
      current_period_start: now,
      current_period_end: values.current_period_end ?? fixedEnd,
      cancel_at_period_end: 0,
      canceled_at: null,
      cancellation_reason: null,
      ended_at: null,
      latest_order_id: null,
    })
  },
  async beforeWrite(context, values, existing) {
    if (!existing) return
    if (existing.source !== 'manual')
      throw conflict(
        'only manual grants can be changed; a paid subscription follows its billing (cancel or resume it)',
      )
    if (ENDED.includes(existing.status))
      throw conflict(`the subscription is ${existing.status}; grant a new one`)
    if (existing.cancel_at_period_end)
      throw conflict('the subscription is cancelling; resume it before changing its end')
    takeEndsAt(values, context.now)
    // A later end (or none) is new access: not for a blocked learner.
    if (lengthensAccess(existing.current_period_end, values.current_period_end))
      await refuseBlockedLearner(context, { student_id: existing.student_id })
  },
  actions: [
    {
      name: 'cancel',
      summary:
        'Cancel at the end of the period (default), or now with at_period_end false or when already cancelling',
      input: {
        at_period_end: boolean({ default: true }),
        reason: text({ max: 500, nullable: true }),
      },
      async run(context, row, input) {
        if (ENDED.includes(row.status)) throw conflict(`the subscription is already ${row.status}`)
        const reason = (input.reason as string | null | undefined) ?? row.cancellation_reason
        const now = context.now
        // Nothing to wait for without a period end (lifetime, open grants): it ends now.
        const endsNow =
          input.at_period_end === false ||
          Boolean(row.cancel_at_period_end) ||
          row.current_period_end === null
        if (endsNow)
          return update(context, row, {
            status: 'canceled',
            cancel_at_period_end: 0,
            canceled_at: (row.canceled_at as number | null) ?? now,
            cancellation_reason: reason ?? null,
            ended_at: now,
          })
        return update(context, row, {
          cancel_at_period_end: 1,
          canceled_at: now,
          cancellation_reason: reason ?? null,
        })
      },
    },
    {
      name: 'resume',
      summary: 'Undo a cancel at period end (only while cancelling)',
      async run(context, row) {
        if (!row.cancel_at_period_end || ENDED.includes(row.status))
          throw conflict('only a subscription cancelling at period end can be resumed')
        // Resuming lets it run on past its end: new access, not for a blocked learner.
        await refuseBlockedLearner(context, { student_id: row.student_id })
        return update(context, row, {
          cancel_at_period_end: 0,
          canceled_at: null,
          cancellation_reason: null,
        })
      },
    },
  ],
})
