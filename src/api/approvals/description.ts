import type { Db } from '../../storage/schema.js'
import type { Row } from '../framework/fields.js'
import type { OperationInput, OperationSpec } from '../framework/operation.js'

/**
 * What a held call will do, in the person's words (the approval page and the problem's
 * detail show it): the record by its name, and what else the call touches. A special
 * sentence where one helps; otherwise a generic but exact one from the operation's summary.
 */
export interface DescribedCall {
  readonly operation: Pick<OperationSpec, 'name' | 'summary'>
  readonly input: OperationInput
  /** The record as the operation's dry run shows it, when it has one. */
  readonly record: Row | undefined
  /** The record as stored before the call. */
  readonly before: Row | undefined
}

const quoted = (text: string) => `“${text}”`

/** A record's name as people know it: its title, name, e-mail or code, else its id. */
export function nameOf(record: Row | undefined): string | undefined {
  if (!record) return undefined
  for (const key of ['title', 'name', 'email', 'code', 'id']) {
    const value = record[key]
    if (typeof value === 'string' && value !== '') return value
  }
  return undefined
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`

/** A learner's name and what they hold (a course, a plan), read by their ids. */
async function learnerAndHolding(
  db: Db,
  record: Row | undefined,
  holding:
    | { table: 'courses'; column: 'course_id'; name: 'title' }
    | {
        table: 'membership_plans'
        column: 'plan_id'
        name: 'name'
      },
): Promise<{ learner: string; thing: string } | undefined> {
  const studentId = record?.student_id
  const thingId = record?.[holding.column]
  if (typeof studentId !== 'string' || typeof thingId !== 'string') return undefined
  const student = await db
    .selectFrom('students')
    .select(['name', 'email'])
    .where('id', '=', studentId)
    .executeTakeFirst()
  const thing =
    holding.table === 'courses'
      ? await db
          .selectFrom('courses')
          .select('title as name')
          .where('id', '=', thingId)
          .executeTakeFirst()
      : await db
          .selectFrom('membership_plans')
          .select('name')
          .where('id', '=', thingId)
          .executeTakeFirst()
  if (!student || !thing) return undefined
  return { learner: student.name ?? student.email, thing: thing.name }
}

const COURSE = { table: 'courses', column: 'course_id', name: 'title' } as const
const PLAN = { table: 'membership_plans', column: 'plan_id', name: 'name' } as const

const sentences: Readonly<
  Record<string, (call: DescribedCall, db: Db) => Promise<string | undefined>>
> = {
  async 'events.cancel'({ record }, db) {
    if (!record || typeof record.id !== 'string') return undefined
    const row = await db
      .selectFrom('event_attendees')
      .select((eb) => eb.fn.countAll<string | number>().as('n'))
      .where('event_id', '=', record.id)
      .where('status', 'in', ['registered', 'checked_in'])
      .executeTakeFirst()
    const n = Number(row?.n ?? 0)
    return `Cancel the event ${quoted(nameOf(record) ?? record.id)}? ${plural(n, 'registered attendee loses their place', 'registered attendees lose their place')}.`
  },
  async 'enrollments.expire'({ record, before }, db) {
    const found = await learnerAndHolding(db, before ?? record, COURSE)
    return found
      ? `Expire ${quoted(found.learner)}’s enrollment in ${quoted(found.thing)}? They lose access to the course.`
      : undefined
  },
  async 'enrollments.delete'({ record, before }, db) {
    const found = await learnerAndHolding(db, before ?? record, COURSE)
    return found
      ? `Revoke ${quoted(found.learner)}’s enrollment in ${quoted(found.thing)}? They lose access to the course.`
      : undefined
  },
  async 'subscriptions.cancel'({ record, before }, db) {
    const found = await learnerAndHolding(db, before ?? record, PLAN)
    return found
      ? `Cancel ${quoted(found.learner)}’s subscription to ${quoted(found.thing)}?`
      : undefined
  },
  async 'members.update'({ record, before }) {
    const name = nameOf(before ?? record)
    if (!name) return undefined
    const from = before?.role
    const to = record?.role
    if (typeof from === 'string' && typeof to === 'string' && from !== to)
      return `Change the role of ${quoted(name)} from ${from} to ${to}?`
    if (record?.status === 'suspended' && before?.status !== 'suspended')
      return `Suspend ${quoted(name)}? They can no longer sign in, and every app they connected stops working.`
    return undefined
  },
  async 'members.delete'({ before, record }) {
    const name = nameOf(before ?? record)
    return name
      ? `Remove ${quoted(name)} from the team? They lose their role and every app they connected stops working.`
      : undefined
  },
  async 'members.create'({ input }) {
    const body = (input.body ?? {}) as Row
    return typeof body.email === 'string' && typeof body.role === 'string'
      ? `Invite ${quoted(body.email)} to the team as ${body.role}?`
      : undefined
  },
}

/** The changed members of a write's body, named: `pricing_plans, title`. */
function fieldsOf(input: OperationInput): string | undefined {
  const body = input.body
  if (body === null || typeof body !== 'object' || Array.isArray(body) || Buffer.isBuffer(body))
    return undefined
  const names = Object.keys(body).sort()
  return names.length > 0 ? names.join(', ') : undefined
}

/** The description of a held call. */
export async function describeCall(call: DescribedCall, db: Db): Promise<string> {
  const special = await sentences[call.operation.name]?.(call, db)
  if (special) return special
  const summary = call.operation.summary.replace(/\.$/, '')
  const name = nameOf(call.before ?? call.record)
  const target = name ? ` ${quoted(name)}` : ''
  const fields = fieldsOf(call.input)
  return `${summary}${target}?${fields ? ` It sets ${fields}.` : ''}`
}
