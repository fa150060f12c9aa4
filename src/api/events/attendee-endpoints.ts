import type { AppDeps } from '../../app-deps.js'
import type { AttendeeStatus, EventAttendeeTable } from '../../storage/tables/events.js'
import { recordChange } from '../activity/record.js'
import {
  checkIfMatch,
  conflict,
  etagOf,
  type FieldError,
  validationFailed,
} from '../conventions.js'
import { notFound, requireOwner, writerOf } from '../framework/access.js'
import { defineEndpoint, type EndpointContext, jsonAnswer } from '../framework/endpoint.js'
import { email, enumeration, reference, text } from '../framework/fields.js'
import { withIdempotency } from '../framework/idempotency.js'
import { projected } from '../framework/list-params.js'
import { type Endpoint, filledPath } from '../framework/operation.js'
import type { ResourceDefinition } from '../framework/resource.js'
import { byName } from '../framework/resource-db.js'
import { refuseBlockedLearner } from '../people/blocked-learners.js'
import { ProblemError } from '../problem.js'
import { attendeeListQuery, listAttendees } from './attendee-list.js'
import { type Addition, register } from './attendee-registration.js'
import { requireSeat, seated, seatTicketOf } from './attendee-seats.js'
import {
  ATTENDEE,
  attendeeFields,
  attendeePageSchema,
  attendeeSchema,
  attendeeView,
  STATUSES,
} from './attendee-views.js'

const LIST = '/api/v1/events/:id/attendees'
const ITEM = '/api/v1/events/:id/attendees/:attendee_id'

const one = (description: string) => ({ description, schema: attendeeSchema, etag: true })
const readProblems = {
  '401': 'No token, or an invalid one',
  '403': 'The token lacks events:read',
  '404': 'No such event or attendee',
}
const writeProblems = {
  '401': 'No token, or an invalid one',
  '403': 'The token lacks events:write, or the role may not write',
  '404': 'No such event or attendee',
  '412': 'If-Match does not match the current ETag',
  '415': 'The body is not JSON',
  '422': 'An invalid body',
}

/** An attendee as answered: with its ETag, never cached. */
const answer = (row: EventAttendeeTable, status = 200) =>
  jsonAnswer(attendeeView(row), { status, etag: true })

/**
 * The attendees of an event (DOMAIN.md §4.3.10): listed with events:read; added by hand
 * (a comp: no order, no revenue), their status changed and removed with events:write.
 * Adding is idempotent per event and person (student or e-mail address).
 */
export function attendeeEndpoints(events: ResourceDefinition): readonly Endpoint[] {
  const readScope = events.scopes.read
  const writeScope = events.scopes.write ?? 'events:write'

  /** The event in the path, by id or slug; 404 when there is none. */
  async function eventOf(deps: AppDeps, id: string) {
    const column = id.startsWith('evt_') ? 'id' : 'slug'
    const event = await deps.database.db
      .selectFrom('events')
      .selectAll()
      .where(column, '=', id)
      .executeTakeFirst()
    if (!event) throw notFound(events)
    return event
  }

  async function attendeeOf(deps: AppDeps, eventId: string, id: string) {
    const row = await deps.database.db
      .selectFrom('event_attendees')
      .selectAll()
      .where('id', '=', id)
      .where('event_id', '=', eventId)
      .executeTakeFirst()
    if (!row)
      throw new ProblemError(404, {
        code: 'not_found',
        title: 'Not Found',
        detail: 'no attendee of this event with this id',
      })
    return row
  }

  /** The writer, the event they may change (its owner rule), and the attendee in the path. */
  async function changing({ deps, caller, params }: EndpointContext) {
    const context = writerOf(caller, events, deps)
    const event = await eventOf(deps, params.id ?? '')
    // The attendees of an event are the event's: its owner rule decides who changes them.
    await requireOwner(events, context, event)
    const attendee = await attendeeOf(deps, event.id, params.attendee_id ?? '')
    return { context, event, attendee }
  }

  const common = { tags: ['events'] }
  return [
    defineEndpoint({
      ...common,
      name: 'event_attendees.list',
      method: 'GET',
      path: LIST,
      operationId: 'listEventAttendees',
      summary: 'The attendees of an event, in order of registration',
      scope: readScope,
      query: attendeeListQuery,
      queryRules: { status: 400 },
      output: { description: 'A page of attendees', schema: attendeePageSchema },
      problems: {
        '400': 'An unknown filter or fields member, a bad limit or cursor',
        ...readProblems,
      },
      async run({ deps, params, query }) {
        const event = await eventOf(deps, params.id ?? '')
        return jsonAnswer(await listAttendees(deps, event.id, query))
      },
    }),
    defineEndpoint({
      ...common,
      name: 'event_attendees.get',
      method: 'GET',
      path: ITEM,
      operationId: 'getEventAttendee',
      summary: 'One attendee of an event',
      scope: readScope,
      // Other parameters are ignored, as resources' single reads ignore them.
      query: { fields: attendeeFields },
      queryRules: { status: 400, unknown: 'ignore' },
      output: one('The attendee'),
      problems: { '400': 'fields names an unknown member', ...readProblems },
      async run({ deps, params, query }) {
        const event = await eventOf(deps, params.id ?? '')
        const row = await attendeeOf(deps, event.id, params.attendee_id ?? '')
        const fields = query.fields as ReadonlySet<string> | undefined
        return jsonAnswer(projected(attendeeView(row), fields), { etag: true })
      },
    }),
    defineEndpoint({
      ...common,
      name: 'event_attendees.add',
      method: 'POST',
      path: LIST,
      operationId: 'addEventAttendee',
      summary: 'Add an attendee by hand (a comp: no order); idempotent per event and person',
      scope: writeScope,
      idempotent: true,
      body: {
        student_id: reference('stu'),
        email: email(),
        name: text({ max: 200 }),
        ticket_id: reference('tkt', { nullable: true }),
      },
      bodyDescription: 'Either student_id, or email with name',
      output: [
        one('The person was already registered (or is registered again)'),
        { ...one('The new attendee'), status: 201 },
      ],
      problems: {
        ...writeProblems,
        '409':
          'The event is canceled or over, full, or the ticket is sold out; or the learner is blocked (learner_blocked)',
      },
      async run({ deps, caller, params, body, input, operation }) {
        const context = writerOf(caller, events, deps)
        const event = await eventOf(deps, params.id ?? '')
        await requireOwner(events, context, event)
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
        const done = await withIdempotency(
          deps.database.db,
          {
            key: input.idempotencyKey,
            scope: `${caller.user.id} ${caller.clientId} ${filledPath(LIST, params)}`,
            body: input.body,
            now: context.now,
          },
          () => register(context, event, body as Addition, operation),
        )
        const result = jsonAnswer(done.body, {
          status: done.status,
          etag: true,
          ...(done.replayed && { headers: { 'idempotent-replayed': 'true' } }),
        })
        return { ...result, ...(done.location && { location: done.location }) }
      },
    }),
    defineEndpoint({
      ...common,
      name: 'event_attendees.update',
      method: 'PATCH',
      path: ITEM,
      operationId: 'updateEventAttendee',
      summary: 'Change an attendee status (checked_in records the time)',
      scope: writeScope,
      ifMatch: true,
      body: { status: enumeration(STATUSES, { required: true }) },
      output: one('The attendee'),
      problems: {
        ...writeProblems,
        '409':
          'No seat left to take a canceled attendee back, or the learner is blocked (learner_blocked)',
      },
      async run(endpoint) {
        const { deps, body, input, operation } = endpoint
        const { context, event, attendee } = await changing(endpoint)
        checkIfMatch(input.ifMatch, etagOf(attendeeView(attendee)))
        const status = body.status as AttendeeStatus
        if (status !== attendee.status)
          await seated(deps, event.id, async (trx) => {
            if (attendee.status === 'canceled') {
              // Taking a canceled attendee back is new access: not for a blocked learner.
              await refuseBlockedLearner({ deps, db: byName(trx) }, attendee)
              await requireSeat(event, await seatTicketOf(trx, attendee.ticket_id), trx)
            }
            await trx
              .updateTable('event_attendees')
              .set({
                status,
                checked_in_at:
                  status === 'checked_in' ? (attendee.checked_in_at ?? context.now) : null,
                updated_at: context.now,
              })
              .where('id', '=', attendee.id)
              .execute()
            await recordChange(
              { ...context, db: trx },
              {
                operation,
                recordType: ATTENDEE,
                recordId: attendee.id,
                changes: [{ field: 'status', before: attendee.status, after: status }],
              },
            )
          })
        return answer(await attendeeOf(deps, event.id, attendee.id))
      },
    }),
    defineEndpoint({
      ...common,
      name: 'event_attendees.remove',
      method: 'DELETE',
      path: ITEM,
      operationId: 'removeEventAttendee',
      summary: 'Remove an attendee (not one with an order)',
      scope: writeScope,
      ifMatch: true,
      output: { status: 204, description: 'Removed' },
      problems: {
        ...writeProblems,
        '409': 'A purchase with an order: cancel the attendee instead',
      },
      async run(endpoint) {
        const { deps, input, operation } = endpoint
        const { context, attendee } = await changing(endpoint)
        checkIfMatch(input.ifMatch, etagOf(attendeeView(attendee)))
        if (attendee.source === 'purchase' && attendee.order_id !== null)
          throw conflict(
            `this attendee bought a ticket (order ${attendee.order_id}); set status canceled instead (PATCH {"status":"canceled"}), refunds are separate`,
          )
        await deps.database.db.transaction().execute(async (trx) => {
          await trx.deleteFrom('event_attendees').where('id', '=', attendee.id).execute()
          await recordChange(
            { ...context, db: trx },
            {
              operation,
              recordType: ATTENDEE,
              recordId: attendee.id,
              changes: [{ field: 'status', before: attendee.status }],
            },
          )
        })
        return { status: 204 }
      },
    }),
  ]
}
