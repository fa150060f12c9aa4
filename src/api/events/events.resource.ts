import { type SqlBool, sql } from 'kysely'
import type { ApiArea } from '../area.js'
import { conflict, type FieldError, validationFailed } from '../conventions.js'
import {
  boolean,
  enumeration,
  type Field,
  fail,
  html,
  instant,
  integer,
  type Row,
  reference,
  text,
  url,
} from '../framework/fields.js'
import { defineResource, type ResourceContext } from '../framework/resource.js'
import { SLUG, uniqueSlug } from '../framework/slugs.js'
import { object } from '../framework/structures.js'
import { checkLecturerIds, hostedBy, lecturerIdsField, profilesOf } from '../people/owners.js'
import { attendeeEndpoints } from './attendee-endpoints.js'
import { checkTickets, enrichEvents, syncTickets, ticketsField } from './event-tickets.js'

/** An IANA time zone name (`America/New_York`), as Intl knows them. */
function timeZone(): Field {
  const inner = text({ public: true, max: 64 })
  return {
    ...inner,
    parse(value, path, errors) {
      const name = inner.parse(value, path, errors)
      if (typeof name !== 'string') return undefined
      try {
        new Intl.DateTimeFormat('en-US', { timeZone: name })
        return name
      } catch {
        return fail(errors, path, 'format', `${path} must be an IANA time zone like Europe/Paris`)
      }
    },
  }
}

/** Checks that the ids a write names exist: the course and each lecturer. */
async function checkReferences(context: ResourceContext, values: Row): Promise<void> {
  const errors: FieldError[] = []
  if (typeof values.course_id === 'string') {
    const course = await context.db
      .selectFrom('courses')
      .select('id')
      .where('id', '=', values.course_id)
      .executeTakeFirst()
    if (!course) errors.push({ field: 'course_id', code: 'not_found', message: 'no such course' })
  }
  await checkLecturerIds(context, values, errors)
  if (errors.length > 0) throw validationFailed(errors)
}

/** Attendees not canceled. */
async function registeredCount(context: ResourceContext, eventId: string): Promise<number> {
  const row = await context.db
    .selectFrom('event_attendees')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('event_id', '=', eventId)
    .where('status', '<>', 'canceled')
    .executeTakeFirst()
  return Number(row?.n ?? 0)
}

/**
 * Events (DOMAIN.md §4.3.10): webinars and in-person events with inline tickets. The public
 * sees published and completed public events (unlisted ones by id or slug); the join link,
 * the recording and attendee figures are never in the public projection.
 */
export const events = defineResource({
  object: 'event',
  collection: 'events',
  table: 'events',
  idPrefix: 'evt',
  summary: 'Webinars and in-person events, with tickets and attendees',
  scopes: { read: 'events:read', write: 'events:write' },
  // Lecturers may be granted events:write (DOMAIN.md §4.1), as for the curriculum.
  writeRoles: ['owner', 'admin', 'editor', 'lecturer'],
  ownership: {
    kind: 'person',
    limited: ['lecturer'],
    rule: 'a lecturer changes, publishes, cancels and deletes only the events they created or host (their lecturer profile in lecturer_ids), and their attendees',
    claim(context, values) {
      values.created_by = context.caller.user.id
    },
    async owns(context, row) {
      if (row.created_by === context.caller.user.id) return true
      return hostedBy(row.lecturer_ids, await profilesOf(context))
    },
  },
  operations: ['list', 'get', 'create', 'update', 'delete'],
  public: {
    get: { status: ['published', 'completed'], visibility: ['public', 'unlisted'] },
    list: { status: ['published', 'completed'], visibility: ['public'] },
  },
  slugField: 'slug',
  defaultSort: '-starts_at',
  fields: {
    title: text({ public: true, required: true, max: 200, sortable: true, search: true }),
    slug: text({ public: true, max: 80, unique: true, ...SLUG }),
    description: html({ public: true, nullable: true }),
    cover_image_url: url({ public: true, nullable: true }),
    type: enumeration(['webinar', 'workshop', 'live_class', 'q_and_a', 'meetup'], {
      public: true,
      filter: true,
      default: 'webinar',
    }),
    format: enumeration(['online', 'in_person', 'hybrid'], {
      public: true,
      filter: true,
      default: 'online',
    }),
    status: enumeration(['draft', 'published', 'canceled', 'completed'], {
      public: true,
      readOnly: true,
      filter: true,
      default: 'draft',
      description: 'Changed by the publish, cancel and complete actions',
    }),
    visibility: enumeration(['public', 'unlisted', 'members_only'], {
      filter: true,
      default: 'public',
      description: 'unlisted: readable by id or slug only; members_only: never public',
    }),
    starts_at: instant({ public: true, required: true, filter: true, sortable: true }),
    ends_at: instant({ public: true, required: true, filter: true, sortable: true }),
    timezone: timeZone(),
    location: object(
      {
        platform: enumeration(['zoom', 'built_in', 'custom'], { nullable: true }),
        join_url: url({
          nullable: true,
          description: 'Never in the public projection',
        }),
        venue_name: text({ max: 200, nullable: true }),
        address: text({ max: 500, nullable: true }),
      },
      { public: true, nullable: true },
    ),
    capacity: integer({ public: true, min: 1, max: 100_000, nullable: true }),
    tickets: ticketsField(),
    lecturer_ids: lecturerIdsField(),
    course_id: reference('crs', { public: true, nullable: true, filter: true }),
    registration_open: boolean({ public: true, filter: true, default: true }),
    recording: object(
      { url: url({ nullable: true }), file_id: reference('fil', { nullable: true }) },
      { nullable: true, description: 'The recording, after the event' },
    ),
    published_at: instant({ public: true, readOnly: true, nullable: true }),
    canceled_at: instant({ readOnly: true, nullable: true }),
    cancellation_reason: text({ readOnly: true, nullable: true, max: 500 }),
    attendees_count: integer({
      readOnly: true,
      description: 'Attendees not canceled (registered, checked in or no-show)',
    }),
  },
  filters: {
    when: {
      field: enumeration(['upcoming', 'past']),
      reads: ['ends_at'],
      description: 'upcoming: not yet ended; past: ended',
      where: (eb, _op, value, now) => eb('ends_at', value === 'past' ? '<=' : '>', now),
    },
    lecturer_id: {
      field: reference('lec'),
      reads: ['lecturer_ids'],
      description: 'Events with this lecturer',
      where: (_eb, _op, value) =>
        sql<SqlBool>`${sql.ref('lecturer_ids')} like ${`%"${String(value).replace(/[\\%_]/g, (c) => `\\${c}`)}"%`} escape '\\'`,
    },
  },
  enrich: (db, rows, full, now) => enrichEvents(db, rows, full, now),
  computed(row, full) {
    if (full) return { tickets: row._tickets ?? [], attendees_count: row._attendees_count ?? 0 }
    const location =
      typeof row.location === 'string'
        ? (({ join_url: _join, ...rest }) => rest)(
            JSON.parse(row.location) as Record<string, unknown>,
          )
        : null
    return { tickets: row._public_tickets ?? [], location }
  },
  async beforeCreate(context, values) {
    values.slug ??= await uniqueSlug(context.db, 'events', values.title!)
    if (values.timezone === undefined) {
      const school = await context.db
        .selectFrom('school')
        .select('timezone')
        .limit(1)
        .executeTakeFirst()
      values.timezone = school?.timezone ?? 'UTC'
    }
  },
  async beforeWrite(context, values, existing) {
    const startsAt = (values.starts_at ?? existing?.starts_at) as number
    const endsAt = (values.ends_at ?? existing?.ends_at) as number
    if (Number(endsAt) <= Number(startsAt))
      throw validationFailed([
        { field: 'ends_at', code: 'range', message: 'ends_at must be after starts_at' },
      ])
    await checkReferences(context, values)
    const id = existing?.id
    if (id && typeof values.capacity === 'number') {
      const registered = await registeredCount(context, id)
      if (values.capacity < registered)
        throw validationFailed([
          {
            field: 'capacity',
            code: 'range',
            message: `capacity may not fall below the ${registered} registered attendees`,
          },
        ])
    }
    const tickets = await checkTickets(context, values, id)
    if (tickets?.length === 0 && existing?.status === 'published')
      throw validationFailed([
        { field: 'tickets', code: 'required', message: 'a published event needs a ticket' },
      ])
  },
  afterWrite: (context, id, values) => syncTickets(context, id, values),
  async beforeDelete(context, row) {
    const paid = await context.db
      .selectFrom('event_attendees as a')
      .leftJoin('event_tickets as t', 't.id', 'a.ticket_id')
      .select('a.id')
      .where('a.event_id', '=', row.id)
      .where((eb) => eb.or([eb('a.order_id', 'is not', null), eb('t.price_amount', '>', 0)]))
      .limit(1)
      .executeTakeFirst()
    if (paid)
      throw conflict(
        'paid tickets of this event were sold; cancel it instead (POST …/cancel), which keeps the sales for refunds',
      )
  },
  lifecycle: {
    publish: {
      summary: 'Publish the event (it needs a ticket and an end in the future)',
      to: 'published',
      stampOnce: 'published_at',
      refuse: {
        canceled: 'a canceled event cannot be published again; create a new event',
        completed: 'the event is already completed',
      },
      check(context, row) {
        const errors: FieldError[] = []
        if (((row._tickets as unknown[] | undefined) ?? []).length === 0)
          errors.push({
            field: 'tickets',
            code: 'required',
            message: 'an event needs at least one ticket (a free one will do) to be published',
          })
        if (row.ends_at <= context.now)
          errors.push({
            field: 'ends_at',
            code: 'range',
            message: 'the event has already ended; move it to the future to publish it',
          })
        if (errors.length > 0) throw validationFailed(errors)
      },
    },
    cancel: {
      summary: 'Cancel the event; attendees and their orders are kept (refunds are separate)',
      to: 'canceled',
      refuse: { completed: 'a completed event cannot be canceled; it has already taken place' },
      input: {
        notify: boolean({
          default: true,
          description: 'Ask for the attendees to be told (logged; no mail is sent by Portico)',
        }),
        reason: text({ max: 500, nullable: true }),
      },
      stamp: 'canceled_at',
      set: (input) => ({
        cancellation_reason: (input.reason as string | null | undefined) ?? null,
        registration_open: 0,
      }),
      async after(context, row, input) {
        if (input.notify !== false && !context.dryRun)
          context.deps.logger.info(
            { event_id: row.id, attendees: await registeredCount(context, row.id) },
            'event canceled: attendees to notify',
          )
      },
    },
    complete: {
      summary: 'Mark a published event that has ended as completed',
      to: 'completed',
      refuse: Object.fromEntries(
        ['draft', 'canceled'].map((s) => [s, `a ${s} event cannot be completed; publish it first`]),
      ),
      check(context, row) {
        if (row.ends_at > context.now)
          throw conflict('the event has not ended yet; complete it after ends_at')
      },
    },
  },
})

export const eventsArea: ApiArea = {
  resources: [events],
  endpoints: attendeeEndpoints(events),
}
