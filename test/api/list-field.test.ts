import { describe, expect, it } from 'vitest'
import type { FieldError } from '../../src/api/conventions.js'
import { reference, text } from '../../src/api/framework/fields.js'
import { list } from '../../src/api/framework/structures.js'

// The list-of-items field: its schema and its check come from one declaration.

const parse = (field: ReturnType<typeof list>, value: unknown) => {
  const errors: FieldError[] = []
  return { value: field.parse(value, 'items', errors), errors }
}

const entries = list(
  { id: reference('tkt'), name: text({ required: true, max: 20 }) },
  {
    max: 2,
    noun: 'tickets',
    uniqueBy: 'id',
    shown: { sold: { type: 'integer', description: 'Counted' } },
    check(item, at, errors) {
      if (item.name === 'bad') errors.push({ field: `${at}.name`, code: 'bad', message: 'bad' })
    },
  },
)

describe('list()', () => {
  it('describes the items it checks, shown members read-only', () => {
    expect(entries.schema()).toEqual({
      type: 'array',
      maxItems: 2,
      items: {
        type: 'object',
        additionalProperties: false,
        properties: {
          id: expect.objectContaining({ pattern: '^tkt_[A-Za-z0-9_-]+$' }),
          name: { type: 'string', maxLength: 20 },
          sold: { type: 'integer', readOnly: true, description: 'Counted' },
        },
        required: ['name'],
      },
    })
  })

  it('refuses what is not a list, or too long a list', () => {
    expect(parse(entries, 'x').errors).toEqual([expect.objectContaining({ code: 'type' })])
    const long = parse(entries, [{ name: 'a' }, { name: 'b' }, { name: 'c' }])
    expect(long.errors).toEqual([
      { field: 'items', code: 'too_long', message: 'items may hold at most 2 tickets' },
    ])
  })

  it('checks each item by its members, ignores echoed shown members, refuses repeats', () => {
    expect(parse(entries, [{ name: ' a ', sold: 3 }])).toEqual({
      value: [{ name: 'a' }],
      errors: [],
    })
    const twice = parse(entries, [
      { id: 'tkt_1', name: 'a' },
      { id: 'tkt_1', name: 'bad', other: 1 },
    ])
    expect(twice.errors.map((e) => [e.field, e.code])).toEqual([
      ['items[1].other', 'unknown_field'],
      ['items[1].id', 'duplicate'],
      ['items[1].name', 'bad'],
    ])
  })

  it('checks scalar items by their field and may drop repeats', () => {
    const ids = list(reference('crs'), { max: 5, noun: 'course ids', dropRepeats: true })
    expect(parse(ids, ['crs_a', 'crs_b', 'crs_a'])).toEqual({
      value: ['crs_a', 'crs_b'],
      errors: [],
    })
    expect(parse(ids, ['crs_a', 'x']).errors).toEqual([
      expect.objectContaining({ field: 'items[1]', code: 'format' }),
    ])
  })

  it('stores JSON text, or hands virtual lists to the hooks as they are', () => {
    expect(entries.toColumn([{ name: 'a' }])).toBe('[{"name":"a"}]')
    expect(entries.fromColumn('[{"name":"a"}]')).toEqual([{ name: 'a' }])
    const virtual = list({ name: text() }, { max: 1, noun: 'x', virtual: true })
    expect(virtual.toColumn([{ name: 'a' }])).toEqual([{ name: 'a' }])
    expect(virtual.fromColumn(undefined)).toEqual([])
  })
})
