/** A JSON value, as a client sends it. */
export type Json = string | number | boolean | null | readonly Json[] | JsonObject
export interface JsonObject {
  readonly [member: string]: Json | undefined
}

/** The resources the demo creates, by collection (the path segment after /api/v1/). */
export type Collection =
  | 'lecturers'
  | 'course_categories'
  | 'post_categories'
  | 'courses'
  | 'sections'
  | 'lessons'
  | 'posts'
  | 'pages'
  | 'coupons'
  | 'digital_products'
  | 'events'
  | 'membership_plans'

/** A later change of a record: an action (publish, archive, cancel …) or an update. */
export type Step =
  | { readonly day: number; readonly action: string; readonly input?: JsonObject }
  | { readonly day: number; readonly update: JsonObject; readonly ids?: readonly string[] }

/**
 * One record of the catalogue: the create body a client would send, the id the demo gives
 * it, the day it was created (days from now, negative in the past) and what happened to it
 * later. The loader creates it through the resource's own create operation, so it passes the
 * same validation as a client's.
 */
export interface CatalogueRecord<Body extends JsonObject = JsonObject> {
  readonly collection: Collection
  readonly id: string
  readonly day: number
  readonly body: Body
  /** The record it is created under (a section's course, a lesson's section). */
  readonly parent?: string
  /** Further ids the create hands out, in order (a membership plan's new prices). */
  readonly ids?: readonly string[]
  readonly later?: readonly Step[]
}

/** Times for create bodies: an instant or a date, so many days from now. */
export interface When {
  /** RFC 3339, whole seconds (UTC). */
  iso(day: number): string
  /** YYYY-MM-DD (UTC). */
  date(day: number): string
}

export const usd = (amount: number) => ({ amount, currency: 'USD' })
export const demoId = (prefix: string, slug: string) =>
  `${prefix}_demo_${slug.replaceAll('-', '_')}`
