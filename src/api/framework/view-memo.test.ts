import { describe, expect, it } from 'vitest'
import type { AppDeps } from '../../app-deps.js'
import type { Row } from './fields.js'
import { keptEtag, tracked, ViewMemo } from './view-memo.js'

/** Keeps an answer made from `row` (what `answer` does when nothing equal is kept). */
const keep = (memo: ViewMemo, key: string, row: Row, json: string) =>
  memo.answer(key, row, () => ({ json, keep: true }))
/** The answer kept for `row`, or undefined: asking makes and keeps nothing. */
const find = (memo: ViewMemo, key: string, row: Row) => {
  const view = memo.answer(key, row, () => ({ json: '', keep: false }))
  return view.json === '' ? undefined : view
}

describe('ViewMemo', () => {
  it('finds an answer only for a row equal column for column', () => {
    const memo = new ViewMemo(10_000)
    const row = { id: 'crs_1', title: 'A', price: 100, open: true, subtitle: null }
    keep(memo, 'full crs_1', row, '{"a":1}')
    expect(find(memo, 'full crs_1', { ...row })?.json).toBe('{"a":1}')
    expect(find(memo, 'public crs_1', { ...row })).toBeUndefined()
    expect(find(memo, 'full crs_1', { ...row, title: 'B' })).toBeUndefined()
    expect(find(memo, 'full crs_1', { ...row, price: '100' })).toBeUndefined()
    expect(find(memo, 'full crs_1', { ...row, extra: 1 })).toBeUndefined()
    expect(find(memo, 'full crs_1', { ...row, extra: undefined })).toBeUndefined()
    const { subtitle: _gone, ...fewer } = row
    expect(find(memo, 'full crs_1', fewer)).toBeUndefined()
  })

  it('keeps its own copy of the row', () => {
    const memo = new ViewMemo(10_000)
    const row: Record<string, unknown> = { id: 'crs_1', title: 'A' }
    keep(memo, 'k', row, '{}')
    row.title = 'B'
    expect(find(memo, 'k', { id: 'crs_1', title: 'A' })).toBeDefined()
    expect(find(memo, 'k', row)).toBeUndefined()
  })

  it('compares what enrich added (arrays and plain objects) value for value', () => {
    const memo = new ViewMemo(10_000)
    type Ticket = { id: string; price: { amount: number; currency: string }; left: unknown }
    const tickets = (): [Ticket, ...Ticket[]] => [
      { id: 'tkt_1', price: { amount: 100, currency: 'EUR' }, left: null },
    ]
    const row = { id: 'evt_1', _tickets: tickets(), _count: 3 }
    keep(memo, 'k', row, '{"e":1}')
    row._tickets[0].left = 2
    expect(find(memo, 'k', { id: 'evt_1', _tickets: tickets(), _count: 3 })?.json).toBe('{"e":1}')
    const changed = (change: (t: [Ticket, ...Ticket[]]) => unknown) => {
      const t = tickets()
      change(t)
      return find(memo, 'k', { id: 'evt_1', _tickets: t, _count: 3 })
    }
    expect(changed((t) => (t[0].price.amount = 101))).toBeUndefined()
    expect(changed((t) => t.push(t[0]))).toBeUndefined()
    expect(changed((t) => Object.assign(t[0], { extra: 1 }))).toBeUndefined()
    expect(changed((t) => delete (t[0] as { left?: unknown }).left)).toBeUndefined()
    expect(changed((t) => (t[0].price = [100, 'EUR'] as never))).toBeUndefined()
  })

  it('compares a member named __proto__ as any other', () => {
    const memo = new ViewMemo(10_000)
    const row = () => ({ id: 'r', extra: JSON.parse('{"__proto__": {"a": 1}}') as unknown })
    keep(memo, 'k', row(), '{}')
    expect(find(memo, 'k', row())).toBeDefined()
    expect(
      find(memo, 'k', { id: 'r', extra: JSON.parse('{"__proto__": {"a": 2}}') }),
    ).toBeUndefined()
    expect(find(memo, 'k', { id: 'r', extra: {} })).toBeUndefined()
  })

  it('keeps nothing made from a row holding other objects (a Buffer, a Date, undefined)', () => {
    const memo = new ViewMemo(10_000)
    for (const value of [Buffer.from('x'), new Date(0), undefined, [undefined]]) {
      const row = { id: 'r', value }
      keep(memo, 'k', row, '{}')
      expect(find(memo, 'k', row)).toBeUndefined()
    }
  })

  it('stays within its budget, the oldest answers going first', () => {
    const memo = new ViewMemo(2_000)
    const json = 'x'.repeat(90)
    for (let i = 0; i < 20; i++) keep(memo, `k${i}`, { id: `r${i}` }, json)
    const kept = Array.from({ length: 20 }, (_, i) => find(memo, `k${i}`, { id: `r${i}` }))
    // 125 or 127 characters an answer (its row, key and ETag counted): the newest 15 fit.
    expect(kept.map((found) => found?.json === json)).toEqual([
      ...Array(5).fill(false),
      ...Array(15).fill(true),
    ])
    // An answer bigger than an eighth of the budget is not kept at all.
    keep(memo, 'big', { id: 'big' }, 'y'.repeat(300))
    expect(find(memo, 'big', { id: 'big' })).toBeUndefined()
  })
})

describe('keptEtag', () => {
  it('is the ETag of the answer, worked out once', () => {
    const memo = new ViewMemo(10_000)
    const first = keep(memo, 'k', { id: 'r' }, '{"a":1}')
    const etag = keptEtag(first)
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/)
    const again = find(memo, 'k', { id: 'r' })
    expect(again).toBe(first)
    expect(again?.etag).toBe(etag)
  })
})

describe('tracked', () => {
  it('notes whether anything but the configuration was read', () => {
    const deps = { config: { issuer: 'x' }, clock: { now: () => 1 } } as unknown as AppDeps
    const onlyConfig = tracked(deps)
    expect(onlyConfig.deps.config.issuer).toBe('x')
    expect(onlyConfig.readOther()).toBe(false)
    const clock = tracked(deps)
    expect(clock.deps.clock.now()).toBe(1)
    expect(clock.readOther()).toBe(true)
  })
})
