import { describe, expect, it } from 'vitest'
import { describeActivity, timeAgo, valueText } from './sentence.js'

const update = (changes: object[]) => ({
  operation: 'digital_products.update',
  record_type: 'digital_product',
  record_id: 'dpr_1',
  changes: changes as [],
})

describe('activity sentences', () => {
  it('a money change in its own currency, from and to', () => {
    const sentence = describeActivity(
      update([
        {
          field: 'price',
          before: { amount: 4900, currency: 'USD' },
          after: { amount: 3900, currency: 'USD' },
        },
      ]),
      'Portrait Lighting',
    )
    expect(sentence).toBe('changed the price of “Portrait Lighting” from $49.00 to $39.00')
    expect(valueText({ amount: 500, currency: 'JPY' })).toBe('¥500')
    expect(valueText({ amount: 1999, currency: 'EUR' })).toBe('€19.99')
  })

  it('free text named only; several fields listed; actions in the past tense', () => {
    expect(describeActivity(update([{ field: 'title' }]))).toBe(
      'changed the title of digital product dpr_1',
    )
    expect(
      describeActivity(update([{ field: 'title' }, { field: 'slug' }, { field: 'price' }]), 'X'),
    ).toBe('changed the title, slug and price of “X”')
    const action = (operation: string) =>
      describeActivity(
        { operation, record_type: 'event', record_id: 'evt_1', changes: [] },
        'Meetup',
      )
    expect(action('events.cancel')).toBe('canceled the event “Meetup”')
    expect(action('events.create')).toBe('created the event “Meetup”')
    expect(action('events.delete')).toBe('deleted the event “Meetup”')
    expect(action('enrollments.complete_lesson')).toBe(
      'ran “complete lesson” on the event “Meetup”',
    )
  })

  it('short text from and to, quoted; a rename says so; a deleted record by its recorded name', () => {
    const course = (operation: string, changes: object[]) => ({
      operation,
      record_type: 'course',
      record_id: 'crs_1',
      changes: changes as [],
    })
    const renamed = { field: 'title', before: 'Portrait Basics', after: 'Portrait Lighting' }
    expect(describeActivity(course('courses.update', [renamed]), 'Portrait Lighting')).toBe(
      'renamed the course “Portrait Basics” to “Portrait Lighting”',
    )
    expect(
      describeActivity(
        course('courses.update', [
          renamed,
          { field: 'level', before: 'beginner', after: 'advanced' },
        ]),
      ),
    ).toBe(
      'renamed the course “Portrait Basics” to “Portrait Lighting” and changed its level from beginner to advanced',
    )
    expect(
      describeActivity(
        course('courses.update', [{ field: 'subtitle', before: null, after: 'In studio' }]),
        'X',
      ),
    ).toBe('changed the subtitle of “X” from none to “In studio”')
    // A record deleted since has no name of now: the one its change recorded.
    expect(describeActivity(course('courses.delete', [{ field: 'title', before: 'Gone' }]))).toBe(
      'deleted the course “Gone”',
    )
    // What a terminal would act on is not passed through.
    expect(
      describeActivity(course('courses.update', [{ ...renamed, after: 'A\u001b[2JB\nC' }])),
    ).toBe('renamed the course “Portrait Basics” to “A\ufffd[2JB\ufffdC”') // Nor what reorders or hides text: bidi marks and overrides, zero-width characters.
    expect(
      describeActivity(
        course('courses.update', [{ ...renamed, after: 'a\u200fb\u202ec\u200bd\u2028e' }]),
      ),
    ).toBe('renamed the course “Portrait Basics” to “a\ufffdb\ufffdc\ufffdd\ufffde”')
  })

  it('time ago', () => {
    const now = 10 * 86_400_000
    expect(timeAgo(now - 30_000, now)).toBe('just now')
    expect(timeAgo(now - 10 * 60_000, now)).toBe('10 minutes ago')
    expect(timeAgo(now - 60 * 60_000, now)).toBe('1 hour ago')
    expect(timeAgo(now - 3 * 86_400_000, now)).toBe('3 days ago')
  })
})
