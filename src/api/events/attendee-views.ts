import type { EventAttendeeTable } from '../../storage/tables/events.js'
import { fieldsMember } from '../framework/endpoint-query.js'
import { ALWAYS_PROJECTED } from '../framework/list-params.js'
import { pageSchema } from '../framework/page-schema.js'
import { shown, view } from '../framework/views.js'

export const STATUSES = ['registered', 'checked_in', 'no_show', 'canceled'] as const
export const SOURCES = ['purchase', 'manual', 'import'] as const
/** The `object` of an attendee. */
export const ATTENDEE = 'event_attendee'

/**
 * An attendee as the API shows it (events:read only: it carries the person's e-mail address).
 * Only `id` and `object` are required: a read with `fields` answers the members it names and
 * those two.
 */
const attendee = view<EventAttendeeTable>(
  {
    id: shown.id('att'),
    object: shown.constant(ATTENDEE),
    event_id: shown.string(),
    ticket_id: shown.string({ nullable: true }),
    student_id: shown.string({ nullable: true }),
    name: shown.string(),
    email: shown.string({ format: 'email' }),
    order_id: shown.string({
      nullable: true,
      description: 'The order of a purchase; manual attendees have none',
    }),
    status: shown.string({ enum: STATUSES }),
    source: shown.string({ enum: SOURCES }),
    registered_at: shown.time(),
    checked_in_at: shown.time({ nullable: true }),
    created_at: shown.time(),
    updated_at: shown.time(),
  },
  { required: ALWAYS_PROJECTED },
)

/** The JSON of an attendee. */
export const attendeeView = (row: EventAttendeeTable) => attendee.show(row)

/** The JSON Schema of {@link attendeeView}. */
export const attendeeSchema = attendee.schema

/** The JSON Schema of a page of attendees. */
export const attendeePageSchema = pageSchema(attendeeSchema, { counted: true })

/** `fields` of the attendee reads: any member of {@link attendeeSchema}. */
export const attendeeFields = fieldsMember(attendee.names, 'an attendee')
