import { describe, expect, it } from 'vitest'
import { useDemoServer } from '../../support/demo.js'
import { type Json, readJson } from '../../support/http.js'
import { issue } from '../../support/token-lifecycle.js'
import { apiClient } from './conventions.js'

const server = useDemoServer()

describe('the demo events', () => {
  it('shows the public the published public events, without join links', async () => {
    const response = await server().fetch('/api/v1/events?sort=starts_at')
    const text = await response.clone().text()
    expect(text).not.toContain('join_url')
    const list = await readJson(response)
    expect(list.data.map((e: Json) => e.id)).toEqual([
      'evt_demo_golden_hour_walk',
      'evt_demo_portrait_workshop',
    ])
    for (const id of ['evt_demo_live_qa', 'evt_demo_draft_meetup', 'evt_demo_canceled_class'])
      expect((await server().fetch(`/api/v1/events/${id}`)).status).toBe(404)
    const workshop = await readJson(
      await server().fetch('/api/v1/events/portrait-lighting-workshop'),
    )
    expect(workshop.tickets).toEqual([
      expect.objectContaining({ id: 'tkt_demo_early_bird', remaining: 0 }),
      expect.objectContaining({ id: 'tkt_demo_regular', remaining: 7 }),
    ])
  })

  it('has every state, with attendees that add up', async () => {
    const { accessToken } = await issue(server(), { role: 'editor', scope: 'events:read' })
    const call = apiClient(server(), accessToken)
    const all = await readJson(await call('/api/v1/events?limit=100'))
    const byId = new Map<string, Json>(all.data.map((e: Json) => [e.id, e]))
    expect(Object.fromEntries([...byId].map(([id, e]) => [id, e.status]))).toEqual({
      evt_demo_live_qa: 'published',
      evt_demo_portrait_workshop: 'published',
      evt_demo_golden_hour_walk: 'completed',
      evt_demo_draft_meetup: 'draft',
      evt_demo_canceled_class: 'canceled',
    })
    const qa = byId.get('evt_demo_live_qa')
    expect(qa).toMatchObject({
      visibility: 'members_only',
      attendees_count: 14,
      location: { platform: 'built_in' },
    })
    expect(qa?.location.join_url).toMatch(/^https:/)
    expect(qa?.tickets).toEqual([
      expect.objectContaining({
        id: 'tkt_demo_live_qa_free',
        price: { amount: 0, currency: 'USD' },
      }),
    ])
    const workshop = byId.get('evt_demo_portrait_workshop')
    expect(workshop?.capacity).toBe(20)
    expect(workshop?.tickets.map((t: Json) => [t.price.amount, t.sold_count, t.remaining])).toEqual(
      [
        [8900, 8, 0],
        [11900, 5, 7],
      ],
    )
    expect(byId.get('evt_demo_golden_hour_walk')?.recording.url).toMatch(/^https:/)
    const walk = await readJson(await call('/api/v1/events/evt_demo_golden_hour_walk/attendees'))
    const statuses = walk.data.map((a: Json) => a.status)
    for (const status of ['checked_in', 'no_show', 'canceled']) expect(statuses).toContain(status)
    expect(byId.get('evt_demo_golden_hour_walk')?.attendees_count).toBe(9)
    const buyers = await readJson(
      await call('/api/v1/events/evt_demo_portrait_workshop/attendees?source=purchase&limit=100'),
    )
    expect(buyers.total_count).toBe(13)
    expect((await call('/api/v1/events?when=past')).status).toBe(200)
    expect(
      (await readJson(await call('/api/v1/events?when=past'))).data.map((e: Json) => e.id),
    ).toEqual(['evt_demo_golden_hour_walk'])
  })
})
