import { describe, expect, it } from 'vitest'
import {
  type ConfirmationCall,
  declaredConfirmation,
  defaultConfirmation,
} from '../../src/api/approvals/policy.js'
import { API_OPERATION_SPECS } from '../../src/api/operations.js'

/**
 * Every write of the catalogue with its default confirmation (issue 35; README
 * "Confirmations"): a change to the rule, or a new write, shows here. `depends`: decided per
 * call by the operation's named rule (policy.ts ARGUMENT_RULES).
 */
const DEFAULTS: Readonly<Record<string, string>> = {
  'school.update': 'none',
  'appearance.update': 'none',
  'appearance.reset': 'none',
  'courses.create': 'none',
  'courses.update': 'depends',
  'courses.delete': 'person',
  'courses.publish': 'none',
  'courses.unpublish': 'none',
  'courses.archive': 'none',
  'courses.duplicate': 'none',
  'course_categories.create': 'none',
  'course_categories.update': 'none',
  'course_categories.delete': 'person',
  'sections.create': 'none',
  'sections.update': 'none',
  'sections.delete': 'person',
  'lessons.create': 'none',
  'lessons.update': 'none',
  'lessons.delete': 'person',
  'lecturers.create': 'none',
  'lecturers.update': 'none',
  'lecturers.delete': 'person',
  'posts.create': 'none',
  'posts.update': 'none',
  'posts.delete': 'person',
  'posts.publish': 'none',
  'posts.unpublish': 'none',
  'posts.archive': 'none',
  'post_categories.create': 'none',
  'post_categories.update': 'none',
  'post_categories.delete': 'person',
  'pages.create': 'none',
  'pages.update': 'none',
  'pages.delete': 'person',
  'pages.publish': 'none',
  'pages.unpublish': 'none',
  'members.create': 'depends',
  'members.update': 'depends',
  'members.delete': 'depends',
  'students.create': 'none',
  'students.update': 'none',
  'students.block': 'person',
  'students.unblock': 'none',
  'enrollments.create': 'none',
  'enrollments.update': 'none',
  'enrollments.delete': 'person',
  'enrollments.expire': 'person',
  'events.create': 'none',
  'events.update': 'none',
  'events.delete': 'person',
  'events.publish': 'none',
  'events.cancel': 'person',
  'events.complete': 'none',
  'membership_plans.create': 'none',
  'membership_plans.update': 'depends',
  'membership_plans.delete': 'person',
  'membership_plans.publish': 'none',
  'membership_plans.archive': 'none',
  'subscriptions.create': 'none',
  'subscriptions.update': 'none',
  'subscriptions.cancel': 'person',
  'subscriptions.resume': 'none',
  'digital_products.create': 'none',
  'digital_products.update': 'depends',
  'digital_products.delete': 'person',
  'digital_products.publish': 'none',
  'digital_products.archive': 'none',
  'coupons.create': 'none',
  'coupons.update': 'none',
  'coupons.delete': 'person',
  'coupons.enable': 'none',
  'coupons.disable': 'none',
  'account.update': 'none',
  'enrollments.complete_lesson': 'none',
  'enrollments.uncomplete_lesson': 'person',
  'curriculum.reorder': 'none',
  'event_attendees.add': 'none',
  'event_attendees.update': 'depends',
  'event_attendees.remove': 'person',
  'storage.upload': 'none',
  'storage.delete': 'person',
  'form_submissions.submit': 'none',
}

const callOf = (
  body: unknown,
  before?: Record<string, unknown>,
  record?: Record<string, unknown>,
): ConfirmationCall => ({
  input: { caller: { kind: 'anonymous' }, params: { id: 'x' }, query: {}, body },
  before,
  record,
})

describe('the default confirmation of each write', () => {
  it('is the listed one, for every write of the catalogue', () => {
    const writes = API_OPERATION_SPECS.filter((operation) => operation.effect !== 'read')
    expect(
      Object.fromEntries(
        writes.map((operation) => [operation.name, declaredConfirmation(operation)]),
      ),
    ).toEqual(DEFAULTS)
  })

  it('asks a person for a price change of what is on sale, not of a draft', () => {
    const update = { name: 'courses.update', effect: 'write' } as const
    const price = { pricing_plans: [] }
    expect(defaultConfirmation(update, callOf(price, { status: 'published' }))).toBe('person')
    expect(defaultConfirmation(update, callOf(price, { status: 'draft' }))).toBe('none')
    expect(defaultConfirmation(update, callOf({ title: 'x' }, { status: 'published' }))).toBe(
      'none',
    )
    const plan = { name: 'membership_plans.update', effect: 'write' } as const
    expect(defaultConfirmation(plan, callOf({ prices: [] }, { status: 'active' }))).toBe('person')
    const product = { name: 'digital_products.update', effect: 'write' } as const
    expect(defaultConfirmation(product, callOf({ price: {} }, { status: 'published' }))).toBe(
      'person',
    )
  })

  it('asks a person for a role change, and an owner or admin when it touches one', () => {
    const update = { name: 'members.update', effect: 'write' } as const
    const editor = { role: 'editor', status: 'active' }
    expect(defaultConfirmation(update, callOf({ name: 'New name' }, editor))).toBe('none')
    expect(defaultConfirmation(update, callOf({ role: 'lecturer' }, editor))).toBe('person')
    expect(defaultConfirmation(update, callOf({ role: 'admin' }, editor))).toBe('owner')
    expect(defaultConfirmation(update, callOf({ status: 'suspended' }, editor))).toBe('person')
    const admin = { role: 'admin', status: 'active' }
    expect(defaultConfirmation(update, callOf({ role: 'editor' }, admin))).toBe('owner')
    const create = { name: 'members.create', effect: 'write' } as const
    expect(defaultConfirmation(create, callOf({ role: 'editor' }))).toBe('person')
    expect(defaultConfirmation(create, callOf({ role: 'owner' }))).toBe('owner')
    const remove = { name: 'members.delete', effect: 'delete' } as const
    expect(defaultConfirmation(remove, callOf(undefined, editor))).toBe('person')
    expect(defaultConfirmation(remove, callOf(undefined, admin))).toBe('owner')
  })
})
