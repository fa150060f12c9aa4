import { hashPassword } from '../../platform/passwords.js'
import type { Db } from '../../storage/schema.js'
import { THREADS } from './history/comments.js'
import { ATTENDEES } from './history/events.js'
import { CAMPAIGNS, FORMS, SUBMISSIONS } from './history/forms.js'
import { ENROLLMENTS, PROGRESS } from './history/learning.js'
import { SUBSCRIPTIONS } from './history/memberships.js'
import { DEMO_PASSWORD, emailOf, STUDENTS, studentId, TEAM } from './history/people.js'
import { loadOrders } from './load-orders.js'
import type { DemoTime } from './when.js'

const HOUR_IN_DAYS = 1 / 24
const json = (value: unknown) => JSON.stringify(value)

/** The team, before anything else: the catalogue is created by its owner, Maya. */
export async function loadTeam(db: Db, time: DemoTime): Promise<void> {
  const passwordHash = await hashPassword(DEMO_PASSWORD)
  for (const member of TEAM) {
    const since = member.since === undefined ? null : time.at(member.since)
    await db
      .insertInto('users')
      .values({
        id: member.id,
        email: member.email,
        name: member.name,
        password_hash: passwordHash,
        role: member.role,
        locale: 'en',
        timezone: 'America/New_York',
        avatar_url: null,
        bio: null,
        notification_preferences: null,
        created_at: time.at(member.day),
        updated_at: time.at(member.day),
        disabled_at: member.status === 'suspended' ? since : null,
        status: member.status,
        invited_at: member.status === 'invited' ? since : null,
        invited_by: member.status === 'invited' ? 'usr_demo_maya' : null,
      })
      .execute()
  }
}

/**
 * What happened in the school: learners, their enrollments and progress, subscriptions,
 * event registrations, orders, comments and form submissions, written as the rows they are
 * (no API creates a payment or a sign-up). Runs after the catalogue, which they refer to.
 */
export async function loadHistory(db: Db, time: DemoTime): Promise<void> {
  for (const [n, name, status, source, day, optIn, tags] of STUDENTS)
    await db
      .insertInto('students')
      .values({
        id: studentId(n),
        email: emailOf(name),
        name,
        user_id: null,
        phone: null,
        locale: 'en',
        timezone: 'America/New_York',
        status,
        tags: json(tags),
        marketing_opt_in: optIn ? 1 : 0,
        source,
        notes: null,
        created_at: time.at(day),
        updated_at: time.at(day),
      })
      .execute()
  for (const [id, student, course, plan, status, source, day, ended] of ENROLLMENTS)
    await db
      .insertInto('enrollments')
      .values({
        id: `enr_demo_${id}`,
        student_id: studentId(student),
        course_id: course,
        pricing_plan_id: plan,
        status,
        source,
        started_at: time.at(day),
        completed_at: status === 'completed' && ended !== null ? time.at(ended) : null,
        expires_at: status === 'expired' && ended !== null ? time.at(ended) : null,
        created_at: time.at(day),
        updated_at: time.at(day),
      })
      .execute()
  for (const [id, count, day] of PROGRESS) {
    const course = ENROLLMENTS.find((e) => e[0] === id)?.[2] ?? ''
    const lessons = await db
      .selectFrom('lessons')
      .select('id')
      .where('course_id', '=', course)
      .orderBy('id')
      .limit(count === 'all' ? 1000 : count)
      .execute()
    for (const lesson of lessons)
      await db
        .insertInto('lesson_progress')
        .values({
          enrollment_id: `enr_demo_${id}`,
          lesson_id: lesson.id,
          completed_at: time.at(day),
        })
        .execute()
  }
  await loadSubscriptions(db, time)
  await loadAttendees(db, time)
  await loadOrders(db, time)
  await loadCommunity(db, time)
}

async function loadSubscriptions(db: Db, time: DemoTime): Promise<void> {
  for (const sub of SUBSCRIPTIONS) {
    const price = await db
      .selectFrom('membership_plan_prices')
      .selectAll()
      .where('id', '=', sub.price)
      .executeTakeFirstOrThrow()
    const manual = sub.source === 'manual'
    const [start, end] = sub.period
    await db
      .insertInto('subscriptions')
      .values({
        id: sub.id,
        student_id: studentId(sub.student),
        plan_id: price.plan_id,
        price_id: price.id,
        status: sub.status,
        // A comp grant costs nothing and does not renew; a paid one keeps its price's terms.
        amount: manual ? 0 : price.amount,
        currency: price.currency,
        interval: manual ? null : price.interval,
        interval_count: manual ? null : price.interval_count,
        source: manual ? 'manual' : 'checkout',
        started_at: time.at(sub.started),
        trial_ends_at: sub.trialEnds === undefined ? null : time.at(sub.trialEnds),
        current_period_start: time.at(start),
        current_period_end: end === null ? null : time.at(end),
        cancel_at_period_end: sub.canceled ? 1 : 0,
        canceled_at: sub.canceled ? time.at(sub.canceled.day) : null,
        cancellation_reason: sub.canceled?.reason ?? null,
        ended_at: sub.ended === undefined ? null : time.at(sub.ended),
        latest_order_id: sub.latestOrder === undefined ? null : `ord_demo_${sub.latestOrder}`,
        created_at: time.at(sub.started),
        updated_at: time.at(sub.canceled?.day ?? sub.ended ?? start),
      })
      .execute()
  }
}

async function loadAttendees(db: Db, time: DemoTime): Promise<void> {
  for (const [id, ticket, student, status, source, day, checkedIn, order] of ATTENDEES) {
    const { event_id } = await db
      .selectFrom('event_tickets')
      .select('event_id')
      .where('id', '=', ticket)
      .executeTakeFirstOrThrow()
    const name = STUDENTS.find(([n]) => n === student)?.[1] ?? ''
    await db
      .insertInto('event_attendees')
      .values({
        id: `att_demo_${id}`,
        event_id,
        ticket_id: ticket,
        student_id: studentId(student),
        name,
        email: emailOf(name),
        order_id: order === null ? null : `ord_demo_${order}`,
        status,
        source,
        registered_at: time.at(day),
        checked_in_at: checkedIn === null ? null : time.at(checkedIn),
        created_at: time.at(day),
        updated_at: time.at(checkedIn ?? day),
      })
      .execute()
  }
}

async function loadCommunity(db: Db, time: DemoTime): Promise<void> {
  let n = 0
  for (const thread of THREADS) {
    const ids: string[] = []
    for (const [i, comment] of thread.comments.entries()) {
      n += 1
      const id = `cmt_demo_${String(n).padStart(2, '0')}`
      const at = time.at(-comment.hoursAgo * HOUR_IN_DAYS)
      await db
        .insertInto('comments')
        .values({
          id,
          target_type: thread.target.type,
          target_id: thread.target.id,
          course_id: thread.target.course ?? null,
          parent_id: i === 0 ? null : (ids[comment.to ?? 0] ?? null),
          thread_id: ids[0] ?? id,
          author_type: comment.by.startsWith('usr_') ? 'member' : 'student',
          author_id: comment.by,
          body: comment.body,
          status: comment.status ?? 'published',
          likes_count: comment.likes ?? 0,
          created_at: at,
          updated_at: at,
        })
        .execute()
      ids.push(id)
    }
  }
  for (const { day, fields, linked_to, ...form } of FORMS)
    await db
      .insertInto('forms')
      .values({
        ...form,
        fields: json(fields),
        linked_to: linked_to ? json(linked_to) : null,
        created_at: time.at(day),
        updated_at: time.at(day),
      })
      .execute()
  for (const s of SUBMISSIONS)
    await db
      .insertInto('form_submissions')
      .values({
        id: `fsub_demo_${s.id}`,
        form_id: `frm_demo_${s.id.replace(/_\d+$/, '')}`,
        email: s.email,
        name: s.name,
        student_id: s.student === undefined ? null : studentId(s.student),
        answers: json(s.answers),
        source_url: s.from,
        utm: s.utm ? json(CAMPAIGNS[s.utm]) : null,
        submitted_at: time.at(s.day),
        created_at: time.at(s.day),
        updated_at: time.at(s.day),
      })
      .execute()
}
