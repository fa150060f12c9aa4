import { P, TEAM_ROLES } from './caller.js'
import type { Cells, Row, Store } from './store.js'

/** The projections: a course, events with their tickets, and the account, as Portico sends them. */

function timestamp(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, -5)}Z`
}
const time = (value: unknown) => (typeof value === 'number' ? timestamp(value) : null)
const json = (value: unknown, otherwise: unknown) =>
  typeof value === 'string' ? JSON.parse(value) : otherwise
const bool = (value: unknown) => (value === null || value === undefined ? null : Boolean(value))

type Plan = { available?: boolean }

/** A course's columns by position (sql.ts COURSE_COLUMNS), from its first. */
export const C = {
  id: 0,
  status: 7,
  visibility: 8,
  createdAt: 22,
  width: 24,
} as const

/**
 * A course as a member of the team sees it: one object literal, its keys in the order Portico
 * sends them, read from the row's columns from position `o`.
 */
export function fullCourse(r: Cells, o: number): Row {
  return {
    id: r[o],
    object: 'course',
    title: r[o + 1],
    slug: r[o + 2],
    subtitle: r[o + 3] ?? null,
    description: r[o + 4] ?? null,
    cover_image_url: r[o + 5] ?? null,
    promo_video_url: r[o + 6] ?? null,
    status: r[o + 7],
    visibility: r[o + 8],
    featured: bool(r[o + 9]),
    category_id: r[o + 10] ?? null,
    tags: json(r[o + 11], []),
    level: r[o + 12],
    language: r[o + 13] ?? null,
    pricing_plans: JSON.parse(r[o + 14] as string),
    enrollment: json(r[o + 15], null),
    certificate_enabled: bool(r[o + 16]),
    comments_enabled: bool(r[o + 17]),
    reviews_enabled: bool(r[o + 18]),
    seo: json(r[o + 19], null),
    published_at: time(r[o + 20]),
    lecturer_ids: json(r[o + 21], []),
    created_at: timestamp(r[o + 22] as number),
    updated_at: timestamp(r[o + 23] as number),
  }
}

/** A course as anyone may see it: no status or visibility, only the plans on sale. */
export function publicCourse(r: Cells, o: number): Row {
  return {
    id: r[o],
    object: 'course',
    title: r[o + 1],
    slug: r[o + 2],
    subtitle: r[o + 3] ?? null,
    description: r[o + 4] ?? null,
    cover_image_url: r[o + 5] ?? null,
    promo_video_url: r[o + 6] ?? null,
    featured: bool(r[o + 9]),
    category_id: r[o + 10] ?? null,
    tags: json(r[o + 11], []),
    level: r[o + 12],
    language: r[o + 13] ?? null,
    pricing_plans: (JSON.parse(r[o + 14] as string) as Plan[]).filter((p) => p.available !== false),
    enrollment: json(r[o + 15], null),
    certificate_enabled: bool(r[o + 16]),
    comments_enabled: bool(r[o + 17]),
    reviews_enabled: bool(r[o + 18]),
    seo: json(r[o + 19], null),
    published_at: time(r[o + 20]),
    lecturer_ids: json(r[o + 21], []),
    created_at: timestamp(r[o + 22] as number),
    updated_at: timestamp(r[o + 23] as number),
  }
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

export function accountView(person: Cells): Row {
  return {
    id: person[P.id],
    object: 'account',
    email: person[P.email],
    email_verified: true,
    name: person[P.name],
    avatar_url: person[P.avatarUrl] ?? null,
    locale: person[P.locale] ?? null,
    timezone: person[P.timezone] ?? null,
    bio: person[P.bio] ?? null,
    kind: TEAM_ROLES.has(person[P.role] as string) ? 'staff' : 'learner',
    role: person[P.role],
    notification_preferences: {
      ...DEFAULT_NOTIFICATIONS,
      ...json(person[P.notificationPreferences], undefined),
    },
    created_at: timestamp(person[P.createdAt] as number),
    updated_at: timestamp(person[P.updatedAt] as number),
  }
}
