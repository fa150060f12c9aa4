import type { EventAttendeeTable } from '../../storage/tables/events.js'
import { timestamp } from '../conventions.js'
import { fieldsMember } from '../framework/endpoint-query.js'
import { ALWAYS_PROJECTED } from '../framework/list-params.js'
import { pageSchema } from '../framework/page-schema.js'

export const STATUSES = ['registered', 'checked_in', 'no_show', 'canceled'] as const
export const SOURCES = ['purchase', 'manual', 'import'] as const
/** The `object` of an attendee. */
export const ATTENDEE = 'event_attendee'

/** The JSON of an attendee (events:read only: it carries the person's e-mail address). */
export function attendeeView(row: EventAttendeeTable): Record<string, unknown> {
  return {
    id: row.id,
    object: ATTENDEE,
    event_id: row.event_id,
    ticket_id: row.ticket_id,
    student_id: row.student_id,
    name: row.name,
    email: row.email,
    order_id: row.order_id,
    status: row.status,
    source: row.source,
    registered_at: timestamp(Number(row.registered_at)),
    checked_in_at: row.checked_in_at === null ? null : timestamp(Number(row.checked_in_at)),
    created_at: timestamp(Number(row.created_at)),
    updated_at: timestamp(Number(row.updated_at)),
  }
}

const time = { type: 'string', format: 'date-time' }
const nullableId = { type: ['string', 'null'] }

/**
 * The JSON Schema of {@link attendeeView}. Only `id` and `object` are required: a read with
 * `fields` answers the members it names and those two.
 */
export const attendeeSchema = {
  type: 'object',
  required: [...ALWAYS_PROJECTED],
  properties: {
    id: { type: 'string', pattern: '^att_' },
    object: { const: 'event_attendee' },
    event_id: { type: 'string' },
    ticket_id: nullableId,
    student_id: nullableId,
    name: { type: 'string' },
    email: { type: 'string', format: 'email' },
    order_id: { ...nullableId, description: 'The order of a purchase; manual attendees have none' },
    status: { type: 'string', enum: [...STATUSES] },
    source: { type: 'string', enum: [...SOURCES] },
    registered_at: time,
    checked_in_at: { type: ['string', 'null'], format: 'date-time' },
    created_at: time,
    updated_at: time,
  },
}

/** The JSON Schema of a page of attendees. */
export const attendeePageSchema = pageSchema(attendeeSchema, { counted: true })

/** `fields` of the attendee reads: any member of {@link attendeeSchema}. */
export const attendeeFields = fieldsMember(Object.keys(attendeeSchema.properties), 'an attendee')
