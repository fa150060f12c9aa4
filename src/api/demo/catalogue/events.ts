import { type CatalogueRecord, type JsonObject, usd, type When } from './types.js'

const HOUR = 1 / 24

const online = (platform: 'built_in' | 'zoom', join_url: string) => ({ platform, join_url })
const venue = (venue_name: string, address: string) => ({ venue_name, address })
const ticket = (name: string, amount: number, quantity: number | null = null) => ({
  name,
  price: usd(amount),
  quantity,
})

/**
 * The events (DOMAIN.md §4.7): an upcoming members-only webinar with a free ticket, an
 * upcoming in-person workshop (early bird sold out, regular seats left), a completed photo
 * walk with a recording, a draft and a canceled event. Times are whole hours from now; their
 * attendees are history (../history/events.ts).
 */
export function eventRecords(when: When): CatalogueRecord[] {
  const at = (starts: number, hours: number): JsonObject => ({
    starts_at: when.iso(starts),
    ends_at: when.iso(starts + hours * HOUR),
  })
  return [
    {
      collection: 'events',
      id: 'evt_demo_live_qa',
      ids: ['tkt_demo_live_qa_free'],
      day: -20,
      body: {
        title: 'Live Q&A: Editing Your Shots',
        slug: 'live-qa-editing-your-shots',
        description:
          '<p>Bring your photos: Maya edits them live in Lightroom and answers your questions.</p>',
        type: 'q_and_a',
        format: 'online',
        visibility: 'members_only',
        ...at(5, 1),
        location: online('built_in', 'https://brightframe.example/live/editing-your-shots'),
        capacity: 100,
        tickets: [ticket('Free for members', 0)],
        lecturer_ids: ['lec_demo_maya'],
        course_id: 'crs_demo_lightroom_editing_masterclass',
      },
      later: [{ day: -18, action: 'publish' }],
    },
    {
      collection: 'events',
      id: 'evt_demo_portrait_workshop',
      ids: ['tkt_demo_early_bird', 'tkt_demo_regular'],
      day: -60,
      body: {
        title: 'Portrait Lighting Workshop',
        slug: 'portrait-lighting-workshop',
        description:
          '<p>A day in the studio with one light, then two: key, fill and rim on real models.</p>',
        type: 'workshop',
        format: 'in_person',
        ...at(21, 6),
        location: venue('Brightframe Studio', '120 Mercer Street, New York, NY 10012'),
        capacity: 20,
        tickets: [
          { ...ticket('Early bird', 8900, 8), sales_end_at: when.iso(7) },
          ticket('Regular', 11900),
        ],
        lecturer_ids: ['lec_demo_diego', 'lec_demo_maya'],
        course_id: 'crs_demo_portrait_lighting',
      },
      later: [{ day: -55, action: 'publish' }],
    },
    {
      collection: 'events',
      id: 'evt_demo_golden_hour_walk',
      ids: ['tkt_demo_golden_hour_walk'],
      day: -40,
      body: {
        title: 'Golden-Hour Photo Walk',
        slug: 'golden-hour-photo-walk',
        description: '<p>An evening walk along the river, shooting into the low sun.</p>',
        type: 'meetup',
        format: 'in_person',
        ...at(-10, 2),
        location: venue('Pier 45', 'Hudson River Park, New York, NY 10014'),
        capacity: 15,
        tickets: [ticket('Walk', 1500, 15)],
        lecturer_ids: ['lec_demo_priya'],
        course_id: 'crs_demo_photography_foundations',
        recording: {
          url: 'https://videos.brightframe.example/golden-hour-photo-walk-recap',
          file_id: null,
        },
      },
      later: [
        { day: -38, action: 'publish' },
        { day: -9, action: 'complete' },
      ],
    },
    {
      collection: 'events',
      id: 'evt_demo_draft_meetup',
      day: -3,
      // No ticket yet: publishing it is refused until one is added.
      body: {
        title: 'Brightframe Community Meetup',
        slug: 'brightframe-community-meetup',
        type: 'meetup',
        format: 'hybrid',
        ...at(45, 3),
        location: {
          ...online('zoom', 'https://zoom.example/j/5550100'),
          ...venue('Brightframe Studio', '120 Mercer Street, New York, NY 10012'),
        },
      },
    },
    {
      collection: 'events',
      id: 'evt_demo_canceled_class',
      ids: ['tkt_demo_canceled_class_free'],
      day: -25,
      body: {
        title: 'Night Sky Live Class',
        slug: 'night-sky-live-class',
        type: 'live_class',
        format: 'online',
        ...at(3, 2),
        location: online('zoom', 'https://zoom.example/j/5550199'),
        capacity: 50,
        tickets: [ticket('Free seat', 0)],
        lecturer_ids: ['lec_demo_diego'],
        course_id: 'crs_demo_night_sky_astrophotography',
      },
      later: [
        { day: -24, action: 'publish' },
        {
          day: -2,
          action: 'cancel',
          input: { reason: 'The forecast is cloudy all week; we will announce a new date.' },
        },
      ],
    },
  ]
}
