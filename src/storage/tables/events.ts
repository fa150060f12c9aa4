/** The tables of this area, merged into the Schema of schema.ts. */
export interface EventTables {
  events: EventTable
  event_tickets: EventTicketTable
  event_attendees: EventAttendeeTable
}

export type EventStatus = 'draft' | 'published' | 'canceled' | 'completed'
export type AttendeeStatus = 'registered' | 'checked_in' | 'no_show' | 'canceled'

/** A webinar or in-person event (DOMAIN.md §4.3.10); `ends_at` > `starts_at`. */
export interface EventTable {
  id: string
  title: string
  /** Unique. */
  slug: string
  description: string | null
  cover_image_url: string | null
  type: 'webinar' | 'workshop' | 'live_class' | 'q_and_a' | 'meetup'
  format: 'online' | 'in_person' | 'hybrid'
  status: EventStatus
  visibility: 'public' | 'unlisted' | 'members_only'
  starts_at: number
  ends_at: number
  /** IANA name, e.g. `America/New_York`. */
  timezone: string
  /** JSON `{platform: zoom|built_in|custom, join_url, venue_name, address}`; join_url is private. */
  location: string | null
  capacity: number | null
  /** JSON list of `lec_…` ids. */
  lecturer_ids: string | null
  course_id: string | null
  registration_open: number
  /** JSON `{url, file_id}` (private). */
  recording: string | null
  published_at: number | null
  canceled_at: number | null
  cancellation_reason: string | null
  /** The team member who created it (`usr_…`); null when unknown or since removed. */
  created_by: string | null
  created_at: number
  updated_at: number
}

/** A ticket type of an event; `quantity` null means as many as the event's capacity allows. */
export interface EventTicketTable {
  id: string
  event_id: string
  name: string
  description: string | null
  /** Integer minor units of `currency`; 0 = free. */
  price_amount: number
  currency: string
  quantity: number | null
  position: number
  sales_start_at: number | null
  sales_end_at: number | null
  created_at: number
  updated_at: number
}

/**
 * A person registered for an event. A ticket's sold count is its attendees not canceled.
 * `order_id` is set on purchases (by checkout, or in the demo history); manual ones have none.
 */
export interface EventAttendeeTable {
  id: string
  event_id: string
  ticket_id: string | null
  student_id: string | null
  name: string
  /** Lower-cased. */
  email: string
  order_id: string | null
  status: AttendeeStatus
  source: 'purchase' | 'manual' | 'import'
  registered_at: number
  checked_in_at: number | null
  created_at: number
  updated_at: number
}
