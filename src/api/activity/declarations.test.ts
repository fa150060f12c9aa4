import { describe, expect, it } from 'vitest'
import { type Field, SHORT_TEXT, text } from '../framework/fields.js'
import { ACCOUNT_CHANGES } from '../people/own-account.js'
import { RESOURCES } from '../registry.js'
import { changesOf } from './changes.js'
import { keepingOf } from './declarations.js'

// How the activity record keeps each field is declared with it (issue 36): these checks run
// over every declaration, so a new field is held to them without a line here.

const declared: Array<[string, Field]> = [
  ...RESOURCES.flatMap((r) =>
    Object.entries(r.fields).map(([name, f]) => [`${r.collection}.${name}`, f] as [string, Field]),
  ),
  ...Object.entries(ACCOUNT_CHANGES).map(([name, f]) => [`account.${name}`, f] as [string, Field]),
]
const schemaOf = (f: Field) =>
  f.schema() as { type?: unknown; maxLength?: number; enum?: unknown; format?: string }
const isString = (f: Field) => [schemaOf(f).type].flat().includes('string')
/** A string that is no enumeration and no time: text, however closed its pattern. */
const isText = (f: Field) => isString(f) && !schemaOf(f).enum && schemaOf(f).format !== 'date-time'

describe('the activity keeping of every declared field', () => {
  it('values only of short text: a kept string can never be longer than 200 characters', () => {
    const long = declared.filter(([, f]) => {
      if (f.activity !== 'text' && f.activity !== 'value') return false
      const { maxLength } = schemaOf(f)
      return isText(f) && !(typeof maxLength === 'number' && maxLength <= SHORT_TEXT)
    })
    expect(long.map(([name]) => name)).toEqual([])
    const text = declared.filter(([, f]) => f.activity === 'text').map(([name]) => name)
    expect(text).toEqual(
      expect.arrayContaining(['courses.title', 'courses.slug', 'school.name', 'account.name']),
    )
  })

  it('long text, rich text, structures, addresses, links and secrets by name only', () => {
    const kept = declared.filter(([, f]) => {
      const schema = schemaOf(f)
      const long = isText(f) && (schema.maxLength ?? Number.POSITIVE_INFINITY) > SHORT_TEXT
      const structured =
        !isString(f) &&
        f.activity !== 'money' &&
        [schema.type].flat().some((t) => t === 'object' || t === 'array')
      const linkOrAddress = schema.format === 'uri' || schema.format === 'email'
      return (long || structured || linkOrAddress) && f.activity !== 'name'
    })
    expect(kept.map(([name]) => name)).toEqual([])
    // Secret-like or personal short text, declared so.
    for (const [type, field] of [
      ['coupon', 'code'],
      ['student', 'phone'],
      ['student', 'email'],
      ['event', 'location'],
      ['appearance', 'custom_css'],
      ['page', 'blocks'],
      ['digital_product', 'files'],
    ] as const)
      expect(keepingOf(type, field), `${type}.${field}`).toBe('name')
  })

  it('a declaration narrows to name only; the kind is chosen by the declared length', () => {
    expect(text({ max: SHORT_TEXT }).activity).toBe('text')
    expect(text({ max: SHORT_TEXT + 1 }).activity).toBe('name')
    expect(text().activity).toBe('name')
    expect(text({ max: 20, activity: 'name' }).activity).toBe('name')
  })

  it('a stored value longer than its declaration (written before its bound) is named only', () => {
    const fields = { title: text({ max: 120 }) }
    expect(changesOf(fields, { title: 'Old' }, { title: 'New' })).toEqual([
      { field: 'title', before: 'Old', after: 'New' },
    ])
    expect(changesOf(fields, { title: 'x'.repeat(SHORT_TEXT + 1) }, { title: 'New' })).toEqual([
      { field: 'title' },
    ])
  })
})
