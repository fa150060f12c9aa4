import type { EventAttendeeTable, EventTable } from '../../storage/tables/events.js'
import { recordChange } from '../activity/record.js'
import { validationFailed } from '../conventions.js'
import type { StoredAnswer } from '../framework/idempotency.js'
import type { ResourceContext } from '../framework/resource.js'
import { byName } from '../framework/resource-db.js'
import { refuseBlockedLearner } from '../people/blocked-learners.js'
import { requireSeat, seated, seatTicketOf } from './attendee-seats.js'
import { ATTENDEE, attendeeView } from './attendee-views.js'

/** Who is added: a student by id, or a person by e-mail address (and name). */
export interface Addition {
  readonly student_id?: string
  readonly email?: string
  readonly name?: string
  readonly ticket_id?: string | null
}

/**
 * Adds a person to an event by hand (a comp: no order, no revenue), or answers with their
 * registration: 200 when they hold one (a canceled one comes back, needing a seat), 201 with
 * its Location when new. A blocked learner (by id, or a student's address) is refused.
 */
export async function register(
  context: ResourceContext,
  event: EventTable,
  addition: Addition,
  operation: string,
): Promise<StoredAnswer> {
  const { deps, now } = context
  const db = deps.database.db
  const ticketId = addition.ticket_id ?? undefined
  const ticket = ticketId
    ? await db
        .selectFrom('event_tickets')
        .select(['id', 'name', 'quantity'])
        .where('id', '=', ticketId)
        .where('event_id', '=', event.id)
        .executeTakeFirst()
    : undefined
  if (ticketId && !ticket)
    throw validationFailed([
      { field: 'ticket_id', code: 'not_found', message: 'no ticket of this event' },
    ])
  let person: { student_id: string | null; email: string; name: string }
  if (addition.student_id !== undefined) {
    const student = await db
      .selectFrom('students')
      .select(['id', 'email', 'name'])
      .where('id', '=', addition.student_id)
      .executeTakeFirst()
    if (!student)
      throw validationFailed([
        { field: 'student_id', code: 'not_found', message: 'no student with this id' },
      ])
    person = { student_id: student.id, email: student.email, name: addition.name ?? student.name }
  } else {
    const mail = addition.email!
    const student = await db
      .selectFrom('students')
      .select('id')
      .where('email', '=', mail)
      .executeTakeFirst()
    person = { student_id: student?.id ?? null, email: mail, name: addition.name! }
  }
  return seated(deps, event.id, async (trx) => {
    await refuseBlockedLearner({ deps, db: byName(trx) }, person)
    const known = await trx
      .selectFrom('event_attendees')
      .selectAll()
      .where('event_id', '=', event.id)
      .where((eb) =>
        person.student_id
          ? eb.or([eb('student_id', '=', person.student_id), eb('email', '=', person.email)])
          : eb('email', '=', person.email),
      )
      .orderBy('registered_at')
      .limit(1)
      .executeTakeFirst()
    if (known && known.status !== 'canceled') return { status: 200, body: attendeeView(known) }
    if (known) {
      // A canceled registration comes back (with the ticket asked for, or its own).
      const seatTicket = ticket ?? (await seatTicketOf(trx, known.ticket_id))
      await requireSeat(event, seatTicket, trx)
      await trx
        .updateTable('event_attendees')
        .set({
          status: 'registered',
          ticket_id: seatTicket?.id ?? null,
          checked_in_at: null,
          updated_at: now,
        })
        .where('id', '=', known.id)
        .execute()
      const row = await trx
        .selectFrom('event_attendees')
        .selectAll()
        .where('id', '=', known.id)
        .executeTakeFirstOrThrow()
      await recordChange(
        { ...context, db: trx },
        {
          operation,
          recordType: ATTENDEE,
          recordId: row.id,
          changes: [
            { field: 'status', before: known.status, after: row.status },
            ...(known.ticket_id !== row.ticket_id
              ? [{ field: 'ticket_id', before: known.ticket_id, after: row.ticket_id }]
              : []),
          ],
        },
      )
      return { status: 200, body: attendeeView(row) }
    }
    await requireSeat(event, ticket, trx)
    const row: EventAttendeeTable = {
      id: deps.random.id('att'),
      event_id: event.id,
      ticket_id: ticket?.id ?? null,
      ...person,
      order_id: null,
      status: 'registered',
      source: 'manual',
      registered_at: now,
      checked_in_at: null,
      created_at: now,
      updated_at: now,
    }
    await trx.insertInto('event_attendees').values(row).execute()
    // The person's name and address are named, not copied.
    await recordChange(
      { ...context, db: trx },
      {
        operation,
        recordType: ATTENDEE,
        recordId: row.id,
        changes: [
          { field: 'event_id', after: event.id },
          { field: 'status', after: row.status },
          { field: 'ticket_id', after: row.ticket_id },
          { field: 'name' },
          { field: 'email' },
        ],
      },
    )
    return {
      status: 201,
      body: attendeeView(row),
      location: `${deps.config.issuer}/api/v1/events/${event.id}/attendees/${row.id}`,
    }
  })
}
