import { compiledPerLength } from '../../storage/compiled-query.js'
import { conflict, type FieldError, timestamp, validationFailed } from '../conventions.js'
import { writeChildren } from '../framework/children.js'
import { type Field, instant, integer, type Row, text } from '../framework/fields.js'
import { MAX_LIMIT } from '../framework/list-params.js'
import { money } from '../framework/money.js'
import type { ResourceContext, RowOf } from '../framework/resource.js'
import type { ResourceDb } from '../framework/store.js'
import { list } from '../framework/structures.js'
import { shown } from '../framework/views.js'
import { schoolCurrency } from '../school/school.resource.js'

/** What a write may say about one ticket; `id` keeps an existing ticket on a PATCH. */
const ticketMembers: Record<string, Field> = {
  id: text({ max: 64, pattern: /^tkt_[A-Za-z0-9_-]+$/, patternHint: 'an id starting with tkt_' }),
  name: text({ required: true, max: 120 }),
  description: text({ max: 500, nullable: true }),
  price: money({ required: true, description: 'amount 0: a free ticket' }),
  quantity: integer({ min: 1, max: 100_000, nullable: true, description: 'null: no own limit' }),
  sales_start_at: instant({ nullable: true }),
  sales_end_at: instant({ nullable: true }),
}

const MAX_TICKETS = 20

/** A ticket as written: parsed members, times in epoch ms. */
export interface TicketInput {
  id?: string
  name: string
  description?: string | null
  price: { amount: number; currency: string }
  quantity?: number | null
  sales_start_at?: number | null
  sales_end_at?: number | null
}

/** The `tickets` field: stored as rows of event_tickets, not as a column of events. */
export function ticketsField(): Field {
  return list(ticketMembers, {
    max: MAX_TICKETS,
    noun: 'tickets',
    uniqueBy: 'id',
    public: true,
    virtual: true,
    default: [],
    description:
      'The ticket types, in order. A PATCH replaces the list: give `id` to keep a ticket (its sales stay with it); a ticket left out is removed, refused (409) while it has attendees.',
    shown: {
      position: shown.integer({ description: 'The order of the list' }),
      sold_count: shown.integer({
        description: 'Attendees holding it, not canceled (events:read only)',
      }),
      remaining: shown.integer({
        nullable: true,
        description: 'Seats left for it (its quantity and the event capacity); null: no limit',
      }),
    },
    check(ticket, at, errors) {
      const { sales_start_at: start, sales_end_at: end } = ticket
      if (typeof start === 'number' && typeof end === 'number' && end <= start)
        errors.push({
          field: `${at}.sales_end_at`,
          code: 'range',
          message: 'sales_end_at must be after sales_start_at',
        })
    },
  })
}

/**
 * The reads of a page of events' tickets and counts, compiled once for each number of events
 * (up to a page of 100): building them with Kysely cost more than running them for a single
 * event (npm run bench, profiled).
 */
const ticketsOfEvents = compiledPerLength(MAX_LIMIT, (db, eventIds) =>
  db
    .selectFrom('event_tickets')
    .selectAll()
    .where('event_id', 'in', eventIds as string[])
    .orderBy('position')
    .orderBy('id'),
)
const soldOfEvents = compiledPerLength(MAX_LIMIT, (db, eventIds) =>
  db
    .selectFrom('event_attendees')
    .select(['event_id', 'ticket_id', (eb) => eb.fn.countAll().as('n')])
    .where('event_id', 'in', eventIds as string[])
    .where('status', '<>', 'canceled')
    .groupBy(['event_id', 'ticket_id']),
)

/** Counts of attendees not canceled, by ticket and by event. */
async function soldCounts(db: ResourceDb, eventIds: readonly string[]) {
  const rows = await soldOfEvents(db, eventIds)
  const byTicket = new Map<string, number>()
  const byEvent = new Map<string, number>()
  for (const row of rows) {
    const n = Number(row.n)
    if (typeof row.ticket_id === 'string') byTicket.set(row.ticket_id, n)
    const event = row.event_id
    byEvent.set(event, (byEvent.get(event) ?? 0) + n)
  }
  return { byTicket, byEvent }
}

/** Seats left: the tighter of the ticket's own quantity and the event's capacity; null: no limit. */
export function remainingOf(
  quantity: number | null,
  sold: number,
  capacity: number | null,
  registered: number,
): number | null {
  const ticketLeft = quantity === null ? null : quantity - sold
  const eventLeft = capacity === null ? null : capacity - registered
  if (ticketLeft === null && eventLeft === null) return null
  return Math.max(0, Math.min(ticketLeft ?? Infinity, eventLeft ?? Infinity))
}

/**
 * Loads the tickets and attendee counts of a page of events in two queries. With `full`:
 * `_tickets` (full views) and `_attendees_count`; without: `_public_tickets` (on sale or not
 * yet, without sold counts). Tickets are grouped by event in one pass (a page of 20 events
 * filtered the whole list once an event, and made both views of every ticket: 10 % of what
 * the page allocated, sampled).
 */
export async function enrichEvents(
  db: ResourceDb,
  rows: RowOf<'events'>[],
  full: boolean,
  now: number,
): Promise<void> {
  const ids = rows.map((r) => r.id)
  const [tickets, counts] = await Promise.all([ticketsOfEvents(db, ids), soldCounts(db, ids)])
  const byEvent = new Map<string, (typeof tickets)[number][]>()
  for (const ticket of tickets) {
    const event = ticket.event_id
    const own = byEvent.get(event)
    if (own === undefined) byEvent.set(event, [ticket])
    else own.push(ticket)
  }
  for (const row of rows) {
    const registered = counts.byEvent.get(row.id) ?? 0
    const capacity = (row.capacity as number | null) ?? null
    const views: Record<string, unknown>[] = []
    for (const t of byEvent.get(row.id) ?? []) {
      const end = t.sales_end_at as number | null
      if (!full && end !== null && Number(end) <= now) continue
      const sold = counts.byTicket.get(t.id) ?? 0
      const view: Record<string, unknown> = {
        id: t.id,
        name: t.name,
        description: t.description ?? null,
        price: { amount: Number(t.price_amount), currency: t.currency },
        quantity: t.quantity ?? null,
        position: Number(t.position),
        sales_start_at: t.sales_start_at === null ? null : timestamp(Number(t.sales_start_at)),
        sales_end_at: end === null ? null : timestamp(Number(end)),
      }
      if (full) view.sold_count = sold
      view.remaining = remainingOf(
        (t.quantity as number | null) ?? null,
        sold,
        capacity,
        registered,
      )
      views.push(view)
    }
    if (full) {
      row._tickets = views
      row._attendees_count = registered
    } else row._public_tickets = views
  }
}

/**
 * Checks the tickets of a write against what the event holds: ids given must be the event's
 * own, a ticket left out must have no attendees (409), a quantity may not fall below what is
 * sold. New tickets get ids; the list is written back to `values.tickets` for `syncTickets`.
 */
export async function checkTickets(
  context: ResourceContext,
  values: Row,
  eventId: string | undefined,
): Promise<TicketInput[] | undefined> {
  if (!Array.isArray(values.tickets)) return undefined
  const tickets = values.tickets as TicketInput[]
  const current = eventId
    ? await context.db
        .selectFrom('event_tickets')
        .select('id')
        .where('event_id', '=', eventId)
        .execute()
    : []
  const known = new Set(current.map((t) => t.id))
  const sold = eventId ? (await soldCounts(context.db, [eventId])).byTicket : new Map()
  const currency = await schoolCurrency(context.db)
  const errors: FieldError[] = []
  tickets.forEach((ticket, i) => {
    if (ticket.price.currency !== currency)
      errors.push({
        field: `tickets[${i}].price.currency`,
        code: 'currency',
        message: `prices are in the school currency, ${currency}`,
      })
    if (ticket.id !== undefined && !known.has(ticket.id))
      errors.push({
        field: `tickets[${i}].id`,
        code: 'not_found',
        message: 'no ticket of this event has this id; leave id out to add a ticket',
      })
    const count = ticket.id ? (sold.get(ticket.id) ?? 0) : 0
    if (typeof ticket.quantity === 'number' && ticket.quantity < count)
      errors.push({
        field: `tickets[${i}].quantity`,
        code: 'range',
        message: `quantity may not fall below the ${count} already sold`,
      })
  })
  if (errors.length > 0) throw validationFailed(errors)
  const kept = new Set(tickets.map((t) => t.id))
  const removed = [...known].filter((id) => !kept.has(id))
  if (removed.length > 0) {
    const held = await context.db
      .selectFrom('event_attendees')
      .select('ticket_id')
      .where('ticket_id', 'in', removed)
      .limit(1)
      .executeTakeFirst()
    if (held)
      throw conflict(
        `ticket ${held.ticket_id} has attendees and cannot be removed; keep it in the list (with its id), or set its sales_end_at to stop selling it`,
      )
  }
  for (const ticket of tickets) ticket.id ??= context.deps.random.id('tkt')
  return tickets
}

/** Writes the checked ticket list of an event: updates kept ones, adds new ones, removes the rest. */
export async function syncTickets(
  context: ResourceContext,
  eventId: string,
  values: Row,
): Promise<void> {
  if (!Array.isArray(values.tickets)) return
  const tickets = values.tickets as Required<TicketInput>[]
  const { db, now } = context
  await writeChildren(db, {
    table: 'event_tickets',
    parent: { column: 'event_id', id: eventId },
    stored: await db
      .selectFrom('event_tickets')
      .selectAll()
      .where('event_id', '=', eventId)
      .execute(),
    wanted: tickets.map((ticket, position) => ({
      id: ticket.id,
      name: ticket.name,
      description: ticket.description ?? null,
      price_amount: ticket.price.amount,
      currency: ticket.price.currency,
      quantity: ticket.quantity ?? null,
      position,
      sales_start_at: ticket.sales_start_at ?? null,
      sales_end_at: ticket.sales_end_at ?? null,
    })),
    leftOut: 'delete',
    onInsert: { created_at: now, updated_at: now },
    onUpdate: { updated_at: now },
  })
}
