import type { AppDeps } from '../../app-deps.js'
import type { Db } from '../../storage/schema.js'
import type {
  EventAttendeeTable,
  EventTable,
  EventTicketTable,
} from '../../storage/tables/events.js'

const HOUR = 3_600_000
const DAY = 24 * HOUR

/** Demo events have no creator: the seed acts for the school, not for a person. */
type DemoEvent = Omit<EventTable, 'created_at' | 'updated_at' | 'created_by'>
type DemoTicket = Omit<EventTicketTable, 'created_at' | 'updated_at' | 'position'>

const online = (platform: 'built_in' | 'zoom', joinUrl: string) =>
  JSON.stringify({ platform, join_url: joinUrl, venue_name: null, address: null })
const venue = (name: string, address: string) =>
  JSON.stringify({ platform: null, join_url: null, venue_name: name, address })

/**
 * The demo events (DOMAIN.md §4.7): an upcoming members-only webinar with a free ticket and
 * 14 registrants, an upcoming in-person workshop (early bird sold out, regular seats left),
 * a completed photo walk with checked-in, no-show and canceled attendees and a recording, a
 * draft and a canceled event. Attendees are demo learners. Registrations for free tickets
 * are `manual` (no order); paid ones are `purchase` with `order_id` null, which the commerce
 * seed fills when it makes their orders.
 */
export async function seedEvents(db: Db, now: number, _deps: AppDeps): Promise<void> {
  const learners = await db
    .selectFrom('students')
    .select(['id', 'name', 'email'])
    .where('id', 'like', 'stu_demo_%')
    .where('status', '=', 'active')
    .orderBy('id')
    .execute()
  // Whole hours, so the times read well.
  const hour = Math.floor(now / HOUR) * HOUR
  const base = {
    description: null,
    cover_image_url: null,
    timezone: 'America/New_York',
    registration_open: 1,
    recording: null,
    canceled_at: null,
    cancellation_reason: null,
  }
  const list: Array<{ event: DemoEvent; tickets: DemoTicket[]; createdAt: number }> = [
    {
      createdAt: now - 20 * DAY,
      event: {
        ...base,
        id: 'evt_demo_live_qa',
        title: 'Live Q&A: Editing Your Shots',
        slug: 'live-qa-editing-your-shots',
        description:
          '<p>Bring your photos: Maya edits them live in Lightroom and answers your questions.</p>',
        type: 'q_and_a',
        format: 'online',
        status: 'published',
        visibility: 'members_only',
        starts_at: hour + 5 * DAY,
        ends_at: hour + 5 * DAY + HOUR,
        location: online('built_in', 'https://brightframe.example/live/editing-your-shots'),
        capacity: 100,
        lecturer_ids: JSON.stringify(['lec_demo_maya']),
        course_id: 'crs_demo_lightroom_editing_masterclass',
        published_at: now - 18 * DAY,
      },
      tickets: [ticket('tkt_demo_live_qa_free', 'evt_demo_live_qa', 'Free for members', 0, null)],
    },
    {
      createdAt: now - 60 * DAY,
      event: {
        ...base,
        id: 'evt_demo_portrait_workshop',
        title: 'Portrait Lighting Workshop',
        slug: 'portrait-lighting-workshop',
        description:
          '<p>A day in the studio with one light, then two: key, fill and rim on real models.</p>',
        type: 'workshop',
        format: 'in_person',
        status: 'published',
        visibility: 'public',
        starts_at: hour + 21 * DAY,
        ends_at: hour + 21 * DAY + 6 * HOUR,
        location: venue('Brightframe Studio', '120 Mercer Street, New York, NY 10012'),
        capacity: 20,
        lecturer_ids: JSON.stringify(['lec_demo_diego', 'lec_demo_maya']),
        course_id: 'crs_demo_portrait_lighting',
        published_at: now - 55 * DAY,
      },
      tickets: [
        {
          ...ticket('tkt_demo_early_bird', 'evt_demo_portrait_workshop', 'Early bird', 8900, 8),
          sales_end_at: hour + 7 * DAY,
        },
        ticket('tkt_demo_regular', 'evt_demo_portrait_workshop', 'Regular', 11900, null),
      ],
    },
    {
      createdAt: now - 40 * DAY,
      event: {
        ...base,
        id: 'evt_demo_golden_hour_walk',
        title: 'Golden-Hour Photo Walk',
        slug: 'golden-hour-photo-walk',
        description: '<p>An evening walk along the river, shooting into the low sun.</p>',
        type: 'meetup',
        format: 'in_person',
        status: 'completed',
        visibility: 'public',
        starts_at: hour - 10 * DAY,
        ends_at: hour - 10 * DAY + 2 * HOUR,
        location: venue('Pier 45', 'Hudson River Park, New York, NY 10014'),
        capacity: 15,
        lecturer_ids: JSON.stringify(['lec_demo_priya']),
        course_id: 'crs_demo_photography_foundations',
        recording: JSON.stringify({
          url: 'https://videos.brightframe.example/golden-hour-photo-walk-recap',
          file_id: null,
        }),
        published_at: now - 38 * DAY,
      },
      tickets: [ticket('tkt_demo_golden_hour_walk', 'evt_demo_golden_hour_walk', 'Walk', 1500, 15)],
    },
    {
      createdAt: now - 3 * DAY,
      event: {
        ...base,
        id: 'evt_demo_draft_meetup',
        title: 'Brightframe Community Meetup',
        slug: 'brightframe-community-meetup',
        type: 'meetup',
        format: 'hybrid',
        status: 'draft',
        visibility: 'public',
        starts_at: hour + 45 * DAY,
        ends_at: hour + 45 * DAY + 3 * HOUR,
        location: JSON.stringify({
          platform: 'zoom',
          join_url: 'https://zoom.example/j/5550100',
          venue_name: 'Brightframe Studio',
          address: '120 Mercer Street, New York, NY 10012',
        }),
        capacity: null,
        lecturer_ids: JSON.stringify([]),
        course_id: null,
        published_at: null,
      },
      // No ticket yet: publishing it is refused until one is added.
      tickets: [],
    },
    {
      createdAt: now - 25 * DAY,
      event: {
        ...base,
        id: 'evt_demo_canceled_class',
        title: 'Night Sky Live Class',
        slug: 'night-sky-live-class',
        type: 'live_class',
        format: 'online',
        status: 'canceled',
        visibility: 'public',
        starts_at: hour + 3 * DAY,
        ends_at: hour + 3 * DAY + 2 * HOUR,
        location: online('zoom', 'https://zoom.example/j/5550199'),
        capacity: 50,
        lecturer_ids: JSON.stringify(['lec_demo_diego']),
        course_id: 'crs_demo_night_sky_astrophotography',
        registration_open: 0,
        published_at: now - 24 * DAY,
        canceled_at: now - 2 * DAY,
        cancellation_reason: 'The forecast is cloudy all week; we will announce a new date.',
      },
      tickets: [
        ticket('tkt_demo_canceled_class_free', 'evt_demo_canceled_class', 'Free seat', 0, null),
      ],
    },
  ]
  for (const { event, tickets, createdAt } of list) {
    await db
      .insertInto('events')
      .values({ ...event, created_at: createdAt, updated_at: event.canceled_at ?? createdAt })
      .execute()
    for (const [position, t] of tickets.entries())
      await db
        .insertInto('event_tickets')
        .values({ ...t, position, created_at: createdAt, updated_at: createdAt })
        .execute()
  }

  const attendees: EventAttendeeTable[] = []
  const at = (
    n: number,
    event: string,
    ticketId: string,
    source: 'purchase' | 'manual',
    registeredAt: number,
    status: EventAttendeeTable['status'] = 'registered',
    checkedInAt: number | null = null,
  ) => {
    const learner = learners[n % learners.length]
    if (!learner) return
    attendees.push({
      id: `att_demo_${event.replace(/^evt_demo_/, '')}_${String(attendees.length + 1).padStart(2, '0')}`,
      event_id: event,
      ticket_id: ticketId,
      student_id: learner.id,
      name: learner.name,
      email: learner.email,
      order_id: null,
      status,
      source,
      registered_at: registeredAt,
      checked_in_at: checkedInAt,
      created_at: registeredAt,
      updated_at: checkedInAt ?? registeredAt,
    })
  }
  // Live Q&A: 14 members registered for the free ticket over the last two weeks.
  for (let i = 0; i < 14; i += 1)
    at(i, 'evt_demo_live_qa', 'tkt_demo_live_qa_free', 'manual', now - (14 - i) * DAY + i * HOUR)
  // Portrait workshop: the 8 early-bird seats sold, then 5 regular ones (13 of 20 seats).
  for (let i = 0; i < 8; i += 1)
    at(
      14 + i,
      'evt_demo_portrait_workshop',
      'tkt_demo_early_bird',
      'purchase',
      now - (50 - i * 3) * DAY,
    )
  for (let i = 0; i < 5; i += 1)
    at(
      22 + i,
      'evt_demo_portrait_workshop',
      'tkt_demo_regular',
      'purchase',
      now - (20 - i * 4) * DAY,
    )
  // Golden-hour walk: 7 came, 2 did not show, 1 canceled before the day.
  const walk = list[2]?.event.starts_at ?? now
  for (let i = 0; i < 10; i += 1) {
    const status = i < 7 ? 'checked_in' : i < 9 ? 'no_show' : 'canceled'
    at(
      3 + i * 3,
      'evt_demo_golden_hour_walk',
      'tkt_demo_golden_hour_walk',
      'purchase',
      now - (35 - i * 2) * DAY,
      status,
      status === 'checked_in' ? walk - 10 * 60_000 + i * 60_000 : null,
    )
  }
  // Canceled class: three had registered before it was called off.
  for (let i = 0; i < 3; i += 1)
    at(
      30 + i,
      'evt_demo_canceled_class',
      'tkt_demo_canceled_class_free',
      'manual',
      now - (20 - i) * DAY,
    )
  for (const attendee of attendees)
    await db.insertInto('event_attendees').values(attendee).execute()
}

function ticket(
  id: string,
  eventId: string,
  name: string,
  amount: number,
  quantity: number | null,
): DemoTicket {
  return {
    id,
    event_id: eventId,
    name,
    description: null,
    price_amount: amount,
    currency: 'USD',
    quantity,
    sales_start_at: null,
    sales_end_at: null,
  }
}
