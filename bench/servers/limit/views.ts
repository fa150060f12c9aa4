import { TEAM_ROLES } from './caller.js'
import type { Row, Store } from './store.js'

/** The projections: a course, events with their tickets, and the account, as Portico sends them. */

function timestamp(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, -5)}Z`
}
const time = (value: unknown) => (typeof value === 'number' ? timestamp(value) : null)
const json = (value: unknown, otherwise: unknown) =>
  typeof value === 'string' ? JSON.parse(value) : otherwise
const bool = (value: unknown) => (value === null || value === undefined ? null : Boolean(value))

type Plan = { available?: boolean }

export function courseView(row: Row, full: boolean): Row {
  const plans = JSON.parse(row.pricing_plans as string) as Plan[]
  const view: Row = {
    id: row.id,
    object: 'course',
    title: row.title,
    slug: row.slug,
    subtitle: row.subtitle ?? null,
    description: row.description ?? null,
    cover_image_url: row.cover_image_url ?? null,
    promo_video_url: row.promo_video_url ?? null,
  }
  if (full) {
    view.status = row.status
    view.visibility = row.visibility
  }
  view.featured = bool(row.featured)
  view.category_id = row.category_id ?? null
  view.tags = json(row.tags, [])
  view.level = row.level
  view.language = row.language ?? null
  view.pricing_plans = full ? plans : plans.filter((p) => p.available !== false)
  view.enrollment = json(row.enrollment, null)
  view.certificate_enabled = bool(row.certificate_enabled)
  view.comments_enabled = bool(row.comments_enabled)
  view.reviews_enabled = bool(row.reviews_enabled)
  view.seo = json(row.seo, null)
  view.published_at = time(row.published_at)
  view.lecturer_ids = json(row.lecturer_ids, [])
  view.created_at = timestamp(row.created_at as number)
  view.updated_at = timestamp(row.updated_at as number)
  return view
}

/** Seats left: the tighter of the ticket's quantity and the event's capacity; null: no limit. */
function remaining(
  quantity: number | null,
  sold: number,
  capacity: number | null,
  registered: number,
): number | null {
  const a = quantity === null ? null : quantity - sold
  const b = capacity === null ? null : capacity - registered
  if (a === null && b === null) return null
  return Math.max(0, Math.min(a ?? Number.POSITIVE_INFINITY, b ?? Number.POSITIVE_INFINITY))
}

/** The full views of events, their tickets and sold counts read for all of them at once. */
export async function eventViews(store: Store, rows: readonly Row[]): Promise<Row[]> {
  if (rows.length === 0) return []
  const ids = rows.map((r) => r.id as string)
  const [tickets, sold] = await Promise.all([store.tickets(ids), store.sold(ids)])
  const byTicket = new Map<string, number>()
  const byEvent = new Map<string, number>()
  for (const s of sold) {
    const n = Number(s.n)
    if (typeof s.ticket_id === 'string') byTicket.set(s.ticket_id, n)
    byEvent.set(s.event_id as string, (byEvent.get(s.event_id as string) ?? 0) + n)
  }
  return rows.map((row) => {
    const registered = byEvent.get(row.id as string) ?? 0
    const capacity = (row.capacity as number | null) ?? null
    const own: Row[] = []
    for (const t of tickets) {
      if (t.event_id !== row.id) continue
      const count = byTicket.get(t.id as string) ?? 0
      const quantity = (t.quantity as number | null) ?? null
      own.push({
        id: t.id,
        name: t.name,
        description: t.description ?? null,
        price: { amount: Number(t.price_amount), currency: t.currency },
        quantity,
        position: Number(t.position),
        sales_start_at: t.sales_start_at === null ? null : timestamp(Number(t.sales_start_at)),
        sales_end_at: t.sales_end_at === null ? null : timestamp(Number(t.sales_end_at)),
        sold_count: count,
        remaining: remaining(quantity, count, capacity, registered),
      })
    }
    return {
      id: row.id,
      object: 'event',
      title: row.title,
      slug: row.slug,
      description: row.description ?? null,
      cover_image_url: row.cover_image_url ?? null,
      type: row.type,
      format: row.format,
      status: row.status,
      visibility: row.visibility,
      starts_at: time(row.starts_at),
      ends_at: time(row.ends_at),
      timezone: row.timezone,
      location: json(row.location, null),
      capacity,
      tickets: own,
      lecturer_ids: json(row.lecturer_ids, []),
      course_id: row.course_id ?? null,
      registration_open: bool(row.registration_open),
      recording: json(row.recording, null),
      published_at: time(row.published_at),
      canceled_at: time(row.canceled_at),
      cancellation_reason: row.cancellation_reason ?? null,
      attendees_count: registered,
      created_at: timestamp(row.created_at as number),
      updated_at: timestamp(row.updated_at as number),
    }
  })
}

const DEFAULT_NOTIFICATIONS = {
  new_order: true,
  new_comment: true,
  new_student: false,
  weekly_summary: true,
  product_news: false,
}

export function accountView(person: Row): Row {
  return {
    id: person.id,
    object: 'account',
    email: person.email,
    email_verified: true,
    name: person.name,
    avatar_url: person.avatar_url ?? null,
    locale: person.locale ?? null,
    timezone: person.timezone ?? null,
    bio: person.bio ?? null,
    kind: TEAM_ROLES.has(person.role as string) ? 'staff' : 'learner',
    role: person.role,
    notification_preferences: {
      ...DEFAULT_NOTIFICATIONS,
      ...json(person.notification_preferences, undefined),
    },
    created_at: timestamp(person.created_at as number),
    updated_at: timestamp(person.updated_at as number),
  }
}
