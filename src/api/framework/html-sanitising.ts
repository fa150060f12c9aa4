import { filterXSS } from 'xss'

/**
 * The one rule for user-written HTML: the allow-list every HTML field keeps (sanitised on
 * write by the `xss` package), and the bound that keeps the sanitiser linear.
 */

const HTML_OPTIONS = {
  whiteList: {
    a: ['href', 'title', 'target', 'rel'],
    p: [],
    br: [],
    strong: [],
    b: [],
    em: [],
    i: [],
    u: [],
    s: [],
    blockquote: [],
    code: [],
    pre: [],
    h2: [],
    h3: [],
    h4: [],
    ul: [],
    ol: [],
    li: [],
    img: ['src', 'alt', 'title', 'width', 'height'],
    figure: [],
    figcaption: [],
    hr: [],
    span: [],
  },
  stripIgnoreTag: true,
  stripIgnoreTagBody: ['script', 'style', 'iframe', 'object', 'embed'],
}

/** Sanitises user-written HTML to the allow-list every HTML field uses. */
export function sanitizeHtml(value: string): string {
  return filterXSS(value, HTML_OPTIONS)
}

/**
 * The most work a value's tags may cost the sanitiser. Its attribute parser (xss 1.0.17,
 * lib/parser.js parseAttr) rewrites a tag's whole attribute text for each space it meets
 * outside a quoted value, so a tag of n characters holding s such spaces costs about s × n
 * steps: one tag of 64 KiB
 * (`<p x=x x=x …`) took 23 s of the event loop. 2,000,000 steps take about 50 ms; ordinary
 * HTML costs a few hundred steps a tag (a 100 KB article with a thousand tags, under 1,000,000).
 */
export const TAG_WORK = 2_000_000

/** Whether a UTF-16 unit is whitespace as `\s` reads it. */
function isSpace(code: number): boolean {
  return (
    (code >= 9 && code <= 13) ||
    code === 32 ||
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  )
}

/**
 * The sanitiser's work on a value's tags, counted in one pass: the tags found as its tokenizer
 * finds them (from `<` to `>` or the end, a quote opened after `=` hiding `>` and `<`), each
 * costing its spaces outside quotes × its length.
 */
export function tagWork(value: string): number {
  let work = 0
  let start = -1
  let spaces = 0
  let quote = 0
  const close = (end: number) => {
    work += spaces * (end - start + 1)
    start = -1
  }
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i)
    if (start < 0) {
      if (code === 60) {
        start = i
        spaces = 0
      }
      continue
    }
    if (quote !== 0) {
      if (code === quote) quote = 0
      continue
    }
    if (isSpace(code)) spaces++
    else if (code === 60) {
      start = i
      spaces = 0
    } else if (code === 62) close(i)
    else if ((code === 34 || code === 39) && quotedAfterEquals(value, i)) quote = code
  }
  if (start >= 0) close(value.length - 1)
  return work
}

/** Whether the quote at `at` opens a value: `=` before it, with only spaces between. */
function quotedAfterEquals(value: string, at: number): boolean {
  for (let i = at - 1; i >= 0; i--) {
    const code = value.charCodeAt(i)
    if (code === 61) return true
    if (!isSpace(code)) return false
  }
  return false
}
