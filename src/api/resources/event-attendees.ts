import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { AppDeps } from '../../app-deps.js'
import type { Db } from '../../storage/schema.js'
import type { EventAttendeeTable } from '../../storage/tables/events.js'
import { requireScope } from '../caller.js'
import {
  checkIfMatch,
  conflict,
  etagOf,
  type FieldError,
  requireJsonContent,
  requireObject,
  timestamp,
  validationFailed,
} from '../conventions.js'
import { notFound, requireOwner, writerOf } from '../framework/access.js'
import { email, enumeration, type Field, reference, text } from '../framework/fields.js'
import { withIdempotency } from '../framework/idempotency.js'
import { DEFAULT_LIMIT, MAX_LIMIT } from '../framework/list-params.js'
import type { ResourceDefinition } from '../framework/resource.js'
import { checkMembers } from '../framework/structures.js'
import { legacyCallerOf } from '../legacy-routes.js'
import type { OpenApiPaths } from '../openapi-paths.js'
import { ProblemError } from '../problem.js'

const LIST = '/api/v1/events/:id/attendees'
const ITEM = '/api/v1/events/:id/attendees/:attendee_id'
const STATUSES = ['registered', 'checked_in', 'no_show', 'canceled'] as const

type Attendee = EventAttendeeTable

const badRequest = (errors: FieldError[]) =>
  new ProblemError(400, {
    code: 'invalid_request',
    title: 'Bad Request',
    detail: errors[0]?.message ?? 'invalid query',
    errors,
  })
const attendeeNotFound = () =>
  new ProblemError(404, {
    code: 'not_found',
    title: 'Not Found',
    detail: 'no attendee of this event with this id',
  })

/** The JSON of an attendee (events:read only: it carries the person's e-mail address). */
export function attendeeView(row: Attendee): Record<string, unknown> {
  return {
    id: row.id,
    object: 'event_attendee',
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

const addMembers: Record<string, Field> = {
  student_id: reference('stu'),
  email: email(),
  name: text({ max: 200 }),
  ticket_id: reference('tkt', { nullable: true }),
}
const changeMembers: Record<string, Field> = {
  status: enumeration(STATUSES, { required: true }),
}

/** Checks a JSON body against members; a 422 names each bad one. */
function parseBody(request: FastifyRequest, members: Record<string, Field>) {
  requireJsonContent(request.headers['content-type'])
  const errors: FieldError[] = []
  const body = checkMembers(members, requireObject(request.body), 'body', errors) ?? {}
  if (errors.length > 0)
    throw validationFailed(errors.map((e) => ({ ...e, field: e.field.replace(/^body\./, '') })))
  return body
}

/**
 * The attendees of an event (DOMAIN.md §4.3.10): listed with events:read; added by hand
 * (a comp: no order, no revenue), their status changed and removed with events:write.
 * Adding is idempotent per event and person (student or e-mail address).
 */
export function registerAttendeeRoutes(
  api: FastifyInstance,
  deps: AppDeps,
  events: ResourceDefinition,
): void {
  const db = deps.database.db
  const { issuer } = deps.config

  /** The event in the path, by id or slug; 404 when there is none. */
  async function eventOf(request: FastifyRequest) {
    const { id } = request.params as { id: string }
    const column = id.startsWith('evt_') ? 'id' : 'slug'
    const event = await db
      .selectFrom('events')
      .selectAll()
      .where(column, '=', id)
      .executeTakeFirst()
    if (!event) throw notFound(events)
    return event
  }

  async function attendeeOf(request: FastifyRequest, eventId: string): Promise<Attendee> {
    const { attendee_id: id } = request.params as { attendee_id: string }
    const row = await db
      .selectFrom('event_attendees')
      .selectAll()
      .where('id', '=', id)
      .where('event_id', '=', eventId)
      .executeTakeFirst()
    if (!row) throw attendeeNotFound()
    return row
  }

  const reader = (request: FastifyRequest) =>
    requireScope(legacyCallerOf(request), events.scopes.read, issuer)

  /**
   * Runs a change of an event's registrations alone: the seat count and the write cannot be
   * interleaved with another's (SQLite's one connection serialises the transaction;
   * PostgreSQL locks the event's row), so a full event is never oversold.
   */
  function seated<T>(eventId: string, fn: (trx: Db) => Promise<T>): Promise<T> {
    return db.transaction().execute(async (trx) => {
      if (deps.database.dialect === 'postgres')
        await trx.selectFrom('events').select('id').where('id', '=', eventId).forUpdate().execute()
      return fn(trx)
    })
  }

  /**
   * Refuses a seat the event cannot give: its capacity is reached, or the ticket's quantity
   * is sold (counting attendees not canceled, so a canceled one coming back needs a seat).
   */
  async function requireSeat(
    event: { id: string; capacity: number | null },
    ticket: { id: string; name: string; quantity: number | null } | undefined,
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

  const send = (reply: FastifyReply, status: number, body: Record<string, unknown>) =>
    reply.code(status).header('cache-control', 'no-store').header('etag', etagOf(body)).send(body)

  api.get(LIST, async (request, reply) => {
    reader(request)
    const event = await eventOf(request)
    const errors: FieldError[] = []
    let limit = DEFAULT_LIMIT
    let after: [number, string] | undefined
    let query = db.selectFrom('event_attendees').selectAll().where('event_id', '=', event.id)
    let count = db
      .selectFrom('event_attendees')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('event_id', '=', event.id)
    for (const [name, raw] of Object.entries(request.query as Record<string, unknown>)) {
      if (typeof raw !== 'string') {
        errors.push({ field: name, code: 'repeated', message: `${name} may be given only once` })
      } else if (name === 'status' || name === 'ticket_id' || name === 'source') {
        if (name === 'status' && !(STATUSES as readonly string[]).includes(raw))
          errors.push({ field: name, code: 'format', message: `status is one of ${STATUSES}` })
        query = query.where(name, '=', raw)
        count = count.where(name, '=', raw)
      } else if (name === 'limit') {
        const n = /^\d{1,3}$/.test(raw) ? Number(raw) : Number.NaN
        if (n >= 1 && n <= MAX_LIMIT) limit = n
        else errors.push({ field: name, code: 'range', message: `limit must be 1 to ${MAX_LIMIT}` })
      } else if (name === 'cursor') {
        try {
          // Only what the column types hold: PostgreSQL errors on a fraction or a number
          // beyond bigint, and on U+0000 in text, where SQLite compares anything.
          const decoded: unknown = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'))
          if (
            Array.isArray(decoded) &&
            decoded.length === 2 &&
            Number.isSafeInteger(decoded[0]) &&
            decoded[0] >= 0 &&
            typeof decoded[1] === 'string' &&
            /^att_[A-Za-z0-9_-]{1,100}$/.test(decoded[1])
          )
            after = decoded as [number, string]
        } catch {
          // Refused below.
        }
        if (!after)
          errors.push({ field: name, code: 'invalid_cursor', message: 'cursor is not one of ours' })
      } else
        errors.push({
          field: name,
          code: 'unknown_parameter',
          message: `${name} is not a filter of attendees; filters: status, ticket_id, source`,
        })
    }
    if (errors.length > 0) throw badRequest(errors)
    if (after) {
      const [at, id] = after
      query = query.where((eb) =>
        eb.or([
          eb('registered_at', '>', at),
          eb.and([eb('registered_at', '=', at), eb('id', '>', id)]),
        ]),
      )
    }
    const [rows, total] = await Promise.all([
      query
        .orderBy('registered_at')
        .orderBy('id')
        .limit(limit + 1)
        .execute(),
      count.executeTakeFirst(),
    ])
    const page = rows.slice(0, limit)
    const last = page[page.length - 1]
    const hasMore = rows.length > limit
    return reply.header('cache-control', 'no-store').send({
      object: 'list',
      data: page.map(attendeeView),
      has_more: hasMore,
      next_cursor:
        hasMore && last
          ? Buffer.from(JSON.stringify([Number(last.registered_at), last.id])).toString('base64url')
          : null,
      total_count: Number(total?.n ?? 0),
    })
  })

  api.get(ITEM, async (request, reply) => {
    reader(request)
    const event = await eventOf(request)
    return send(reply, 200, attendeeView(await attendeeOf(request, event.id)))
  })

  /** Adds a person by hand (a comp), or answers with their registration if they have one. */
  api.post(LIST, async (request, reply) => {
    const context = writerOf(legacyCallerOf(request), events, deps)
    const event = await eventOf(request)
    // The attendees of an event are the event's: its owner rule decides who changes them.
    await requireOwner(events, context, event)
    const body = parseBody(request, addMembers)
    const errors: FieldError[] = []
    if ((body.student_id === undefined) === (body.email === undefined))
      errors.push({
        field: 'student_id',
        code: 'required',
        message: 'give either student_id or email (with name)',
      })
    if (body.email !== undefined && body.name === undefined)
      errors.push({ field: 'name', code: 'required', message: 'name is required with email' })
    if (errors.length > 0) throw validationFailed(errors)
    if (event.status === 'canceled') throw conflict('the event is canceled')
    if (event.status === 'completed') throw conflict('the event is over (completed)')
    const key = request.headers['idempotency-key']
    const answer = await withIdempotency(
      db,
      {
        key: typeof key === 'string' ? key : undefined,
        scope: `${context.caller.user.id} ${context.caller.clientId} ${request.url}`,
        body: request.body,
        now: context.now,
      },
      async () => {
        const ticketId = (body.ticket_id as string | null | undefined) ?? undefined
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
        if (typeof body.student_id === 'string') {
          const student = await db
            .selectFrom('students')
            .select(['id', 'email', 'name'])
            .where('id', '=', body.student_id)
            .executeTakeFirst()
          if (!student)
            throw validationFailed([
              { field: 'student_id', code: 'not_found', message: 'no student with this id' },
            ])
          person = {
            student_id: student.id,
            email: student.email,
            name: (body.name as string | undefined) ?? student.name,
          }
        } else {
          const mail = body.email as string
          const student = await db
            .selectFrom('students')
            .select('id')
            .where('email', '=', mail)
            .executeTakeFirst()
          person = { student_id: student?.id ?? null, email: mail, name: body.name as string }
        }
        return seated(event.id, async (trx) => {
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
          if (known && known.status !== 'canceled')
            return { status: 200, body: attendeeView(known) }
          if (known) {
            // A canceled registration comes back (with the ticket asked for, or its own).
            const seatTicket =
              ticket ??
              (known.ticket_id
                ? await trx
                    .selectFrom('event_tickets')
                    .select(['id', 'name', 'quantity'])
                    .where('id', '=', known.ticket_id)
                    .executeTakeFirst()
                : undefined)
            await requireSeat(event, seatTicket, trx)
            await trx
              .updateTable('event_attendees')
              .set({
                status: 'registered',
                ticket_id: seatTicket?.id ?? null,
                checked_in_at: null,
                updated_at: context.now,
              })
              .where('id', '=', known.id)
              .execute()
            const row = await trx
              .selectFrom('event_attendees')
              .selectAll()
              .where('id', '=', known.id)
              .executeTakeFirstOrThrow()
            return { status: 200, body: attendeeView(row) }
          }
          await requireSeat(event, ticket, trx)
          const row: Attendee = {
            id: deps.random.id('att'),
            event_id: event.id,
            ticket_id: ticket?.id ?? null,
            ...person,
            order_id: null,
            status: 'registered',
            source: 'manual',
            registered_at: context.now,
            checked_in_at: null,
            created_at: context.now,
            updated_at: context.now,
          }
          await trx.insertInto('event_attendees').values(row).execute()
          return {
            status: 201,
            body: attendeeView(row),
            location: `${issuer}/api/v1/events/${event.id}/attendees/${row.id}`,
          }
        })
      },
    )
    if (answer.location) reply.header('location', answer.location)
    if (answer.replayed) reply.header('idempotent-replayed', 'true')
    return send(reply, answer.status, answer.body as Record<string, unknown>)
  })

  /** Changes an attendee's status; checking in records the time. */
  api.patch(ITEM, async (request, reply) => {
    const context = writerOf(legacyCallerOf(request), events, deps)
    const event = await eventOf(request)
    await requireOwner(events, context, event)
    const attendee = await attendeeOf(request, event.id)
    const body = parseBody(request, changeMembers)
    checkIfMatch(request.headers['if-match'], etagOf(attendeeView(attendee)))
    const status = body.status as Attendee['status']
    if (status !== attendee.status)
      await seated(event.id, async (trx) => {
        if (attendee.status === 'canceled') {
          const ticket = attendee.ticket_id
            ? await trx
                .selectFrom('event_tickets')
                .select(['id', 'name', 'quantity'])
                .where('id', '=', attendee.ticket_id)
                .executeTakeFirst()
            : undefined
          await requireSeat(event, ticket, trx)
        }
        await trx
          .updateTable('event_attendees')
          .set({
            status,
            checked_in_at: status === 'checked_in' ? (attendee.checked_in_at ?? context.now) : null,
            updated_at: context.now,
          })
          .where('id', '=', attendee.id)
          .execute()
      })
    return send(reply, 200, attendeeView(await attendeeOf(request, event.id)))
  })

  /** Removes a registration; a purchase with an order is kept (cancel it instead). */
  api.delete(ITEM, async (request, reply) => {
    const context = writerOf(legacyCallerOf(request), events, deps)
    const event = await eventOf(request)
    await requireOwner(events, context, event)
    const attendee = await attendeeOf(request, event.id)
    checkIfMatch(request.headers['if-match'], etagOf(attendeeView(attendee)))
    if (attendee.source === 'purchase' && attendee.order_id !== null)
      throw conflict(
        `this attendee bought a ticket (order ${attendee.order_id}); set status canceled instead (PATCH {"status":"canceled"}), refunds are separate`,
      )
    await db.deleteFrom('event_attendees').where('id', '=', attendee.id).execute()
    return reply.code(204).send()
  })
}

const problem = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
})
const time = { type: 'string', format: 'date-time' }
const nullableId = { type: ['string', 'null'] }
const attendeeSchema = {
  type: 'object',
  required: ['id', 'object', 'event_id', 'name', 'email', 'status', 'source', 'registered_at'],
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
    source: { type: 'string', enum: ['purchase', 'manual', 'import'] },
    registered_at: time,
    checked_in_at: { type: ['string', 'null'], format: 'date-time' },
    created_at: time,
    updated_at: time,
  },
}
const one = (description: string) => ({
  description,
  headers: { ETag: { schema: { type: 'string' } } },
  content: { 'application/json': { schema: attendeeSchema } },
})
const params = {
  id: { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
  attendee: { name: 'attendee_id', in: 'path', required: true, schema: { type: 'string' } },
  ifMatch: { name: 'If-Match', in: 'header', required: false, schema: { type: 'string' } },
  idempotency: {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    schema: { type: 'string' },
  },
}
const readErrors = {
  '401': problem('No token, or an invalid one'),
  '403': problem('The token lacks events:read'),
  '404': problem('No such event or attendee'),
}
const writeErrors = {
  '401': problem('No token, or an invalid one'),
  '403': problem('The token lacks events:write, or the role may not write'),
  '404': problem('No such event or attendee'),
  '412': problem('If-Match does not match the current ETag'),
  '415': problem('The body is not JSON'),
  '422': problem('An invalid body'),
}
const read = (operationId: string, summary: string, extra: Record<string, unknown>) => ({
  operationId,
  summary,
  tags: ['events'],
  security: [{ oauth2: ['events:read'] }],
  ...extra,
})
const write = (operationId: string, summary: string, extra: Record<string, unknown>) => ({
  operationId,
  summary,
  tags: ['events'],
  security: [{ oauth2: ['events:write'] }],
  ...extra,
})

export const attendeePaths: OpenApiPaths = {
  '/api/v1/events/{id}/attendees': {
    get: read('listEventAttendees', 'The attendees of an event, in order of registration', {
      parameters: [
        params.id,
        { name: 'status', in: 'query', schema: { type: 'string', enum: [...STATUSES] } },
        { name: 'ticket_id', in: 'query', schema: { type: 'string' } },
        {
          name: 'source',
          in: 'query',
          schema: { type: 'string', enum: ['purchase', 'manual', 'import'] },
        },
        { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: MAX_LIMIT } },
        { name: 'cursor', in: 'query', schema: { type: 'string' } },
      ],
      responses: {
        '200': {
          description: 'A page of attendees',
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['object', 'data', 'has_more', 'next_cursor', 'total_count'],
                properties: {
                  object: { const: 'list' },
                  data: { type: 'array', items: attendeeSchema },
                  has_more: { type: 'boolean' },
                  next_cursor: { type: ['string', 'null'] },
                  total_count: { type: 'integer' },
                },
              },
            },
          },
        },
        '400': problem('An unknown filter, a bad limit or cursor'),
        ...readErrors,
      },
    }),
    post: write(
      'addEventAttendee',
      'Add an attendee by hand (a comp: no order); idempotent per event and person',
      {
        parameters: [params.id, params.idempotency],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                additionalProperties: false,
                description: 'Either student_id, or email with name',
                properties: {
                  student_id: { type: 'string', pattern: '^stu_' },
                  email: { type: 'string', format: 'email' },
                  name: { type: 'string', maxLength: 200 },
                  ticket_id: { type: ['string', 'null'], pattern: '^tkt_' },
                },
              },
            },
          },
        },
        responses: {
          '200': one('The person was already registered (or is registered again)'),
          '201': one('The new attendee'),
          ...writeErrors,
          '409': problem('The event is canceled or over, full, or the ticket is sold out'),
        },
      },
    ),
  },
  '/api/v1/events/{id}/attendees/{attendee_id}': {
    get: read('getEventAttendee', 'One attendee of an event', {
      parameters: [params.id, params.attendee],
      responses: { '200': one('The attendee'), ...readErrors },
    }),
    patch: write('updateEventAttendee', 'Change an attendee status (checked_in records the time)', {
      parameters: [params.id, params.attendee, params.ifMatch],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              type: 'object',
              additionalProperties: false,
              required: ['status'],
              properties: { status: { type: 'string', enum: [...STATUSES] } },
            },
          },
        },
      },
      responses: {
        '200': one('The attendee'),
        ...writeErrors,
        '409': problem('No seat left to take a canceled attendee back'),
      },
    }),
    delete: write('removeEventAttendee', 'Remove an attendee (not one with an order)', {
      parameters: [params.id, params.attendee, params.ifMatch],
      responses: {
        '204': { description: 'Removed' },
        ...writeErrors,
        '409': problem('A purchase with an order: cancel the attendee instead'),
      },
    }),
  },
}
