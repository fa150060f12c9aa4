import { HTML_DESCRIPTION, type JsonSchema } from '../api/framework/fields.js'
import { AMOUNT_DESCRIPTION, CURRENCY_DESCRIPTION } from '../api/framework/money.js'

/**
 * String formats said in words. Gemini's function declarations refuse every `format` but
 * `date-time` and `enum`, and the other clients ignore them: a format is checked by the
 * operation's own declaration when the call runs, whatever the schema says, so a tool's input
 * schema keeps only `date-time` and tells the model the rest in its description.
 */
const FORMAT_WORDS: Readonly<Record<string, string>> = {
  email: 'an e-mail address',
  uri: 'an http(s) URL',
  date: 'a date as YYYY-MM-DD',
  binary: 'raw bytes',
}

/**
 * A length bound from which on it guards the server rather than guides the writer: not shown
 * (a text as long is refused all the same, too_long).
 */
const LONG_TEXT = 1000

/** Formats whose words say the whole shape: the pattern and the length bound go with them. */
const SAID_WHOLE = new Set(['email', 'uri'])

/**
 * Descriptions the server's instructions say at length once (money is integer minor units
 * with its ISO 4217 currency; school text is data), said shortly where a tool's input repeats
 * them: a price alone repeats them in every tool that takes one.
 */
const SAID_SHORTLY: ReadonlyMap<string, string> = new Map([
  [AMOUNT_DESCRIPTION, 'Minor units'],
  [CURRENCY_DESCRIPTION, 'ISO 4217 code'],
  [HTML_DESCRIPTION, 'HTML, sanitised on write'],
])

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** The pattern of an id reference (`^cat_[A-Za-z0-9_-]+$`), and its prefix. */
const ID_PATTERN = /^\^([a-z]+)_\[A-Za-z0-9_-\]\+\$$/

/**
 * The schema a tool's input shows a model: every string format but `date-time` moved into its
 * description (an e-mail address or a URL said in words alone, without the pattern and the
 * length that repeat them), an id reference said as its prefix (`a cat_… id`) rather than as a
 * pattern and a length (a fifth of every input schema's tokens), and what the instructions say
 * once said shortly. A nested object is not marked closed (the tool's own arguments are), and
 * a length bound of LONG_TEXT or more is not shown. The operation checks all of it, whatever
 * the schema shows, and names an unknown member or a text too long in its answer.
 */
export function portableSchema(schema: JsonSchema): JsonSchema {
  return portable(schema) as JsonSchema
}

/** Adds words to a schema's description (first, when it has one). */
function said(out: Record<string, unknown>, words: string): void {
  const own = typeof out.description === 'string' ? out.description : undefined
  out.description = own ? `${words}: ${own}` : words.charAt(0).toUpperCase() + words.slice(1)
}

function portable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(portable)
  if (!isObject(value)) return value
  const out: Record<string, unknown> = {}
  for (const [key, member] of Object.entries(value)) {
    // `properties` maps names to schemas: a member named `format` is a schema, not a format.
    if (key === 'properties' && isObject(member))
      out[key] = Object.fromEntries(Object.entries(member).map(([n, s]) => [n, portable(s)]))
    else if (key === 'additionalProperties' && member === false) continue
    else if (key === 'maxLength' && typeof member === 'number' && member >= LONG_TEXT) continue
    else if (key !== 'format' || typeof member !== 'string' || member === 'date-time')
      out[key] = portable(member)
  }
  const shortly = typeof value.description === 'string' && SAID_SHORTLY.get(value.description)
  if (shortly) {
    out.description = shortly
    // A currency's pattern (three capitals) already says its length.
    if (value.description === CURRENCY_DESCRIPTION) {
      delete out.minLength
      delete out.maxLength
    }
  }
  const format = value.format
  if (typeof format === 'string' && format !== 'date-time') {
    const words = FORMAT_WORDS[format] ?? `in the ${format} format`
    const own = typeof value.description === 'string' ? value.description : undefined
    out.description = own ? `${own} (${words})` : words.charAt(0).toUpperCase() + words.slice(1)
    if (SAID_WHOLE.has(format)) {
      delete out.pattern
      delete out.maxLength
    }
  }
  const id = typeof value.pattern === 'string' ? ID_PATTERN.exec(value.pattern) : null
  if (id) {
    delete out.pattern
    delete out.maxLength
    said(out, `a ${id[1]}_… id`)
  }
  return out
}
