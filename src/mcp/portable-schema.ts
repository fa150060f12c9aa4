import type { JsonSchema } from '../api/framework/fields.js'

/**
 * String formats said in words. Gemini's function declarations refuse every `format` but
 * `date-time` and `enum`, and the other clients ignore them: a format is checked by the
 * operation's own declaration when the call runs, whatever the schema says, so a tool's input
 * schema keeps only `date-time` and tells the model the rest in its description.
 */
const FORMAT_WORDS: Readonly<Record<string, string>> = {
  email: 'an e-mail address',
  uri: 'an absolute URL',
  date: 'a date as YYYY-MM-DD',
  binary: 'raw bytes',
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** The pattern of an id reference (`^cat_[A-Za-z0-9_-]+$`), and its prefix. */
const ID_PATTERN = /^\^([a-z]+)_\[A-Za-z0-9_-\]\+\$$/

/**
 * The schema a tool's input shows a model: every string format but `date-time` moved into its
 * description, and an id reference said as its prefix (`a cat_… id`) rather than as a pattern
 * and a length (a fifth of every input schema's tokens; the operation checks both).
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
    else if (key !== 'format' || typeof member !== 'string' || member === 'date-time')
      out[key] = portable(member)
  }
  const format = value.format
  if (typeof format === 'string' && format !== 'date-time') {
    const words = FORMAT_WORDS[format] ?? `in the ${format} format`
    const own = typeof value.description === 'string' ? value.description : undefined
    out.description = own ? `${own} (${words})` : words.charAt(0).toUpperCase() + words.slice(1)
  }
  const id = typeof value.pattern === 'string' ? ID_PATTERN.exec(value.pattern) : null
  if (id) {
    delete out.pattern
    delete out.maxLength
    said(out, `a ${id[1]}_… id`)
  }
  return out
}
