import type { ConfirmationLevel } from '../../storage/tables/activity.js'
import type { Row } from '../framework/fields.js'
import type { OperationInput, OperationSpec } from '../framework/operation.js'

export type { ConfirmationLevel }

export const CONFIRMATION_LEVELS: readonly ConfirmationLevel[] = ['none', 'person', 'owner']

/**
 * What a call's confirmation is decided from: the call, and the record it acts on as the
 * operation's own dry run shows it (the record after the change, or the one a delete
 * removes), when the operation has one.
 */
export interface ConfirmationCall {
  readonly input: OperationInput
  readonly record: Row | undefined
  /** The record as stored before the call, read by id (a member's current role). */
  readonly before: Row | undefined
}

/** A confirmation that depends on the call's arguments or its record. */
export type ConfirmationRule = (call: ConfirmationCall) => ConfirmationLevel

/**
 * The one rule (README "Confirmations"): an operation that deletes, or ends someone's access
 * or money (its action is one of these), needs the `person` the token acts for to say yes.
 */
export const ENDING_ACTIONS: ReadonlySet<string> = new Set([
  'cancel',
  'expire',
  'block',
  'remove',
  'revoke',
])

const ROLES_OF_OWNERS = new Set(['owner', 'admin'])

const bodyOf = (input: OperationInput): Row =>
  input.body !== null && typeof input.body === 'object' && !Array.isArray(input.body)
    ? (input.body as Row)
    : {}

/**
 * A team change (members): giving, changing or ending a role (a suspension ends access)
 * needs `person`; when the member is or becomes an owner or admin, `owner`.
 */
export const teamRoleChange: ConfirmationRule = ({ input, record, before }) => {
  const body = bodyOf(input)
  const roles = [before?.role, record?.role, body.role]
  const touchesRole =
    input.body === undefined || // a removal
    (body.role !== undefined && body.role !== before?.role) ||
    (body.status === 'suspended' && before?.status !== 'suspended') ||
    before === undefined // a new member gets a role
  if (!touchesRole) return 'none'
  return roles.some((role) => typeof role === 'string' && ROLES_OF_OWNERS.has(role))
    ? 'owner'
    : 'person'
}

/**
 * A change of what buyers pay for something on sale: the write names `priceField` while the
 * record is in `onSale` state (a published course, an active plan, a published product).
 */
export const priceOnSale =
  (priceField: string, onSale: string): ConfirmationRule =>
  ({ input, before, record }) =>
    priceField in bodyOf(input) && (before ?? record)?.status === onSale ? 'person' : 'none'

/** An attendee's place ended by an update (status `canceled`). */
export const attendeePlaceEnded: ConfirmationRule = ({ input }) =>
  bodyOf(input).status === 'canceled' ? 'person' : 'none'

/** The operations whose confirmation depends on the call: each by one named rule. */
export const ARGUMENT_RULES: Readonly<Record<string, ConfirmationRule>> = {
  'members.create': teamRoleChange,
  'members.update': teamRoleChange,
  'members.delete': teamRoleChange,
  'courses.update': priceOnSale('pricing_plans', 'published'),
  'membership_plans.update': priceOnSale('prices', 'active'),
  'digital_products.update': priceOnSale('price', 'published'),
  'event_attendees.update': attendeePlaceEnded,
}

/** The action of an operation: `cancel` of `events.cancel`. */
const actionOf = (name: string): string => name.slice(name.indexOf('.') + 1)

/**
 * The default confirmation of a write, before its arguments are known: a named rule's
 * operations are `depends` (decided per call by {@link defaultConfirmation}).
 */
export function declaredConfirmation(
  operation: Pick<OperationSpec, 'name' | 'effect'>,
): ConfirmationLevel | 'depends' {
  if (operation.effect === 'read') return 'none'
  if (ARGUMENT_RULES[operation.name]) return 'depends'
  if (operation.effect === 'delete' || ENDING_ACTIONS.has(actionOf(operation.name))) return 'person'
  return 'none'
}

/** The default confirmation of one call of `operation`. */
export function defaultConfirmation(
  operation: Pick<OperationSpec, 'name' | 'effect'>,
  call: ConfirmationCall,
): ConfirmationLevel {
  const declared = declaredConfirmation(operation)
  if (declared !== 'depends') return declared
  const rule = ARGUMENT_RULES[operation.name]
  return rule ? rule(call) : 'none'
}

/** Whether `value` names a confirmation level. */
export const isConfirmationLevel = (value: unknown): value is ConfirmationLevel =>
  typeof value === 'string' && (CONFIRMATION_LEVELS as readonly string[]).includes(value)
