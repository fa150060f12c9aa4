import type { AppDeps } from '../../app-deps.js'
import type { Db } from '../../storage/schema.js'
import { conflict } from '../conventions.js'

/** A ticket type as a seat check needs it. */
export interface SeatTicket {
  readonly id: string
  readonly name: string
  readonly quantity: number | null
}

/**
 * Runs a change of an event's registrations alone: the seat count and the write cannot be
 * interleaved with another's (SQLite's one connection serialises the transaction;
 * PostgreSQL locks the event's row), so a full event is never oversold.
 */
export function seated<T>(deps: AppDeps, eventId: string, fn: (trx: Db) => Promise<T>): Promise<T> {
  return deps.database.db.transaction().execute(async (trx) => {
    if (deps.database.dialect === 'postgres')
      await trx.selectFrom('events').select('id').where('id', '=', eventId).forUpdate().execute()
    return fn(trx)
  })
}

/** The ticket type `id` (of any event), as a seat check needs it. */
export function seatTicketOf(executor: Db, id: string | null): Promise<SeatTicket | undefined> {
  if (!id) return Promise.resolve(undefined)
  return executor
    .selectFrom('event_tickets')
    .select(['id', 'name', 'quantity'])
    .where('id', '=', id)
    .executeTakeFirst()
}

/**
 * Refuses a seat the event cannot give: its capacity is reached, or the ticket's quantity
 * is sold (counting attendees not canceled, so a canceled one coming back needs a seat).
 */
export async function requireSeat(
  event: { id: string; capacity: number | null },
  ticket: SeatTicket | undefined,
  executor: Db,
): Promise<void> {
  const taken = (ticketId?: string) => {
    let query = executor
      .selectFrom('event_attendees')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('event_id', '=', event.id)
      .where('status', '<>', 'canceled')
    if (ticketId) query = query.where('ticket_id', '=', ticketId)
    return query.executeTakeFirst().then((r) => Number(r?.n ?? 0))
  }
  if (event.capacity !== null && (await taken()) >= event.capacity)
    throw conflict(`the event is full (capacity ${event.capacity}); raise its capacity first`)
  if (ticket && ticket.quantity !== null && (await taken(ticket.id)) >= ticket.quantity)
    throw conflict(
      `the ticket "${ticket.name}" is sold out (${ticket.quantity}); raise its quantity or choose another ticket`,
    )
}
