import { describe, expect, it } from 'vitest'
import { sanitizeHtml, TAG_WORK, tagWork } from './html-sanitising.js'

describe('tagWork: what the sanitiser’s attribute parser costs, counted linearly', () => {
  it('is spaces × length per tag', () => {
    expect(tagWork('<p a=b c=d>text</p>')).toBe(2 * 11)
    expect(tagWork('no tags at all, many spaces')).toBe(0)
    // A tag never closed runs to the end, as the sanitiser's tokenizer reads it.
    expect(tagWork('<p x y')).toBe(2 * 6)
  })

  it('follows quotes opened after = (a > inside one does not end the tag, its spaces cost nothing)', () => {
    const quoted = '<a title="a > b" x=y>'
    expect(tagWork(quoted)).toBe(2 * quoted.length)
  })

  it('bounds what took seconds, and keeps ordinary HTML far below the bound', () => {
    expect(tagWork(`<p ${'x=x '.repeat(16_000)}`)).toBeGreaterThan(TAG_WORK)
    const article = `<p><a href="https://example.com/x" title="${'w '.repeat(30)}">l</a> text</p>`
    expect(tagWork(article.repeat(1_000))).toBeLessThan(TAG_WORK)
  })

  it('sanitises within the bound in well under a second', () => {
    const started = performance.now()
    sanitizeHtml(`<p ${'x=x '.repeat(700)}>`.repeat(1))
    expect(tagWork(`<p ${'x=x '.repeat(700)}>`)).toBeLessThanOrEqual(TAG_WORK)
    expect(performance.now() - started).toBeLessThan(1_000)
  })
})
