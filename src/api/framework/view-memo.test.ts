import { describe, expect, it } from 'vitest'
import type { AppDeps } from '../../app-deps.js'
import { tracked, ViewMemo } from './view-memo.js'

const view = (json: string) => ({ json, etag: `"${json.length}"` })

describe('ViewMemo', () => {
  it('finds an answer only for a row equal column for column', () => {
    const memo = new ViewMemo(10_000)
    const row = { id: 'crs_1', title: 'A', price: 100, open: true, subtitle: null }
    memo.keep('full crs_1', row, view('{"a":1}'))
    expect(memo.find('full crs_1', { ...row })?.json).toBe('{"a":1}')
    expect(memo.find('public crs_1', { ...row })).toBeUndefined()
    expect(memo.find('full crs_1', { ...row, title: 'B' })).toBeUndefined()
    expect(memo.find('full crs_1', { ...row, price: '100' })).toBeUndefined()
    expect(memo.find('full crs_1', { ...row, extra: 1 })).toBeUndefined()
    expect(memo.find('full crs_1', { ...row, extra: undefined })).toBeUndefined()
    const { subtitle: _gone, ...fewer } = row
    expect(memo.find('full crs_1', fewer)).toBeUndefined()
  })

  it('keeps its own copy of the row', () => {
    const memo = new ViewMemo(10_000)
    const row: Record<string, unknown> = { id: 'crs_1', title: 'A' }
    memo.keep('k', row, view('{}'))
    row.title = 'B'
    expect(memo.find('k', { id: 'crs_1', title: 'A' })).toBeDefined()
    expect(memo.find('k', row)).toBeUndefined()
  })

  it('compares what enrich added (arrays and plain objects) value for value', () => {
    const memo = new ViewMemo(10_000)
    type Ticket = { id: string; price: { amount: number; currency: string }; left: unknown }
    const tickets = (): [Ticket, ...Ticket[]] => [
      { id: 'tkt_1', price: { amount: 100, currency: 'EUR' }, left: null },
    ]
    const row = { id: 'evt_1', _tickets: tickets(), _count: 3 }
    memo.keep('k', row, view('{"e":1}'))
    row._tickets[0].left = 2
    expect(memo.find('k', { id: 'evt_1', _tickets: tickets(), _count: 3 })?.json).toBe('{"e":1}')
    const changed = (change: (t: [Ticket, ...Ticket[]]) => unknown) => {
      const t = tickets()
      change(t)
      return memo.find('k', { id: 'evt_1', _tickets: t, _count: 3 })
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
    memo.keep('k', row(), view('{}'))
    expect(memo.find('k', row())).toBeDefined()
    expect(
      memo.find('k', { id: 'r', extra: JSON.parse('{"__proto__": {"a": 2}}') }),
    ).toBeUndefined()
    expect(memo.find('k', { id: 'r', extra: {} })).toBeUndefined()
  })

  it('keeps nothing made from a row holding other objects (a Buffer, a Date, undefined)', () => {
    const memo = new ViewMemo(10_000)
    for (const value of [Buffer.from('x'), new Date(0), undefined, [undefined]]) {
      const row = { id: 'r', value }
      memo.keep('k', row, view('{}'))
      expect(memo.find('k', row)).toBeUndefined()
    }
  })

  it('stays within its budget, the oldest answers going first', () => {
    const memo = new ViewMemo(2_000)
    const json = 'x'.repeat(90)
    for (let i = 0; i < 20; i++) memo.keep(`k${i}`, { id: `r${i}` }, view(json))
    const kept = Array.from({ length: 20 }, (_, i) => memo.find(`k${i}`, { id: `r${i}` }))
    // 125 or 127 characters an answer (its row, key and ETag counted): the newest 15 fit.
    expect(kept.map((found) => found?.json === json)).toEqual([
      ...Array(5).fill(false),
      ...Array(15).fill(true),
    ])
    // An answer bigger than an eighth of the budget is not kept at all.
    memo.keep('big', { id: 'big' }, view('y'.repeat(300)))
    expect(memo.find('big', { id: 'big' })).toBeUndefined()
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
