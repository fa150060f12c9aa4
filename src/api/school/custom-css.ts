// The tokenizer and the decoders alone: the package's main module also builds its lexer from
// the whole CSS grammar (4.3 MB of heap against 0.7, Node 20), which nothing here uses.
import { tokenize, tokenTypes } from 'css-tree/tokenizer'
import { ident, string, url } from 'css-tree/utils'

/**
 * The school's `custom_css` is rendered into a `<style>` element of every page of its site,
 * so it must not load anything but https images, run script, or end the element. It is read
 * the way a browser reads it: css-tree's tokenizer (CSS Syntax Level 3) splits it into
 * tokens, escapes are decoded (`@\69mport` is `@import`, `java\73 cript:` is `javascript:`)
 * and comments are dropped, so neither spelling nor a comment inside a keyword hides it.
 *
 * Refused: `@import` and every at-rule outside a short allow-list (no `@font-face`: fonts come
 * from the typography allow-list, no `@namespace`, `@charset`, `@document`); `url()` except
 * to an `https:` URL in a property that shows an image; functions that load or run things
 * (`expression()`, `image()`, `image-set()`, `src()`, `element()`); script schemes
 * (`javascript:`, `vbscript:`); `behavior` and `-moz-binding`; `</` (it would close the style
 * element); unterminated strings and malformed `url(`.
 */

export interface CssProblem {
  /** 1-based line of the offending token, when one token is to blame. */
  readonly line?: number
  readonly message: string
}

const AT_RULES = new Set([
  'media',
  'supports',
  'keyframes',
  '-webkit-keyframes',
  'layer',
  'container',
  'page',
  'property',
  'counter-style',
  'scope',
  'starting-style',
  'font-feature-values',
])

/** Properties whose `url()` shows an image. */
const IMAGE_PROPERTIES = new Set([
  'background',
  'background-image',
  'border-image',
  'border-image-source',
  'list-style',
  'list-style-image',
  'content',
  'mask',
  'mask-image',
  '-webkit-mask',
  '-webkit-mask-image',
])

const FUNCTIONS_REFUSED = new Set([
  'expression',
  'image',
  'image-set',
  '-webkit-image-set',
  'src',
  'element',
  '-moz-element',
])

const PROPERTIES_REFUSED = new Set(['behavior', 'behaviour', '-ms-behavior', '-moz-binding'])

interface Token {
  readonly type: number
  readonly raw: string
  readonly start: number
  /** The token as the browser understands it: escapes decoded, lower-cased where CSS is. */
  readonly value: string
}

function decode(type: number, raw: string): string {
  switch (type) {
    case tokenTypes.Ident:
      return ident.decode(raw).toLowerCase()
    case tokenTypes.Function:
      return `${ident.decode(raw.slice(0, -1)).toLowerCase()}(`
    case tokenTypes.AtKeyword:
      return `@${ident.decode(raw.slice(1)).toLowerCase()}`
    case tokenTypes.Hash:
    case tokenTypes.Dimension:
      return ident.decode(raw).toLowerCase()
    case tokenTypes.String:
      return string.decode(raw)
    case tokenTypes.Url:
      // url.decode expects the name spelled `url(` literally; the name may be escaped.
      return url.decode(`url(${raw.slice(raw.indexOf('(') + 1)}`)
    case tokenTypes.Comment:
      return ''
    default:
      return raw
  }
}

function tokens(css: string): Token[] {
  const list: Token[] = []
  tokenize(css, (type, start, end) => {
    const raw = css.slice(start, end)
    list.push({ type, raw, start, value: decode(type, raw) })
  })
  return list
}

/** An https URL (what the browser's URL parser makes of it, tabs and new lines removed). */
function isHttpsUrl(value: string): boolean {
  try {
    return new URL(value).protocol === 'https:'
  } catch {
    return false
  }
}

const skippable = (t: Token | undefined) =>
  t !== undefined && (t.type === tokenTypes.WhiteSpace || t.type === tokenTypes.Comment)

/** The next token from `i` on that is neither white space nor a comment. */
function nextSignificant(list: readonly Token[], i: number): Token | undefined {
  let j = i
  while (skippable(list[j])) j += 1
  return list[j]
}

/** Checks custom CSS; returns the first problem, or undefined when it is safe to render. */
export function findCssProblem(css: string): CssProblem | undefined {
  const lineOf = (offset: number) => css.slice(0, offset).split(/\r\n|[\n\r\f]/).length
  const problem = (offset: number | undefined, message: string): CssProblem =>
    offset === undefined ? { message } : { line: lineOf(offset), message }

  const closing = css.search(/<\//)
  if (closing >= 0) return problem(closing, 'may not contain "</" (it would end the style element)')

  const list = tokens(css)
  let property: string | undefined
  let atDeclarationStart = true
  /** The decoded text without comments: keywords split by a comment show up here. */
  let joined = ''
  for (let i = 0; i < list.length; i += 1) {
    const token = list[i] as Token
    const { type, value } = token
    if (type === tokenTypes.BadString || type === tokenTypes.BadUrl)
      return problem(token.start, 'has an unterminated string or a malformed url()')
    if (type === tokenTypes.AtKeyword && !AT_RULES.has(value.slice(1)))
      return problem(
        token.start,
        value === '@import' ? 'may not use @import' : `may not use the at-rule ${value}`,
      )
    if (type === tokenTypes.Function && FUNCTIONS_REFUSED.has(value.slice(0, -1)))
      return problem(token.start, `may not use ${value})`)

    let urlValue: string | undefined
    if (type === tokenTypes.Url) urlValue = value
    else if (type === tokenTypes.Function && value === 'url(') {
      const argument = nextSignificant(list, i + 1)
      if (argument?.type !== tokenTypes.String)
        return problem(token.start, 'has a url() that is not a single string')
      urlValue = argument.value
    }
    if (urlValue !== undefined) {
      if (property === undefined || !IMAGE_PROPERTIES.has(property))
        return problem(token.start, 'may use url() only for images (background, list-style …)')
      if (!isHttpsUrl(urlValue)) return problem(token.start, 'may use url() only with https: URLs')
      joined += '\u0000url\u0000'
      if (type === tokenTypes.Function) {
        // Skip the string argument: it was checked as the URL.
        i = list.indexOf(nextSignificant(list, i + 1) as Token)
      }
      atDeclarationStart = false
      continue
    }

    if (type === tokenTypes.Ident && atDeclarationStart) {
      if (nextSignificant(list, i + 1)?.type === tokenTypes.Colon) {
        property = value
        if (PROPERTIES_REFUSED.has(value))
          return problem(token.start, `may not use the property ${value}`)
      }
    }
    if (
      type === tokenTypes.LeftCurlyBracket ||
      type === tokenTypes.RightCurlyBracket ||
      type === tokenTypes.Semicolon
    ) {
      property = undefined
      atDeclarationStart = true
    } else if (!skippable(token)) atDeclarationStart = false
    joined += type === tokenTypes.String ? JSON.stringify(value) : value
  }

  // What a comment or an escape split apart, read as one word.
  const words = joined.toLowerCase().replace(/\s+/g, '')
  const split = (what: string) => problem(undefined, `may not use ${what}, however it is spelled`)
  if (words.includes('@import')) return split('@import')
  if (words.includes('expression(')) return split('expression()')
  if (words.includes('url(')) return split('url() other than to https: images')
  if (/(java|vb|live)script:/.test(words)) return split('script URLs')
  if (/(behaviou?r|-moz-binding):/.test(words)) return split('behavior or -moz-binding')
  return undefined
}
