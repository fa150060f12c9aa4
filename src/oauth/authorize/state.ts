import { AuthorizePageError } from './errors.js'

/**
 * The longest `state` Portico carries, in bytes of UTF-8. Up to it, `state` comes back
 * byte for byte on every redirect, success or error (RFC 6749 §4.1.2, §4.1.2.1); beyond
 * it the answer is an error page, never a redirect that would drop or cut it.
 */
export const MAX_STATE_BYTES = 2048

/** A percent escape, or a `%` that starts none (kept as a literal by the query parser). */
const ESCAPE = /%([0-9A-Fa-f]{2})?/g
/** A UTF-16 code unit without its pair: it has no UTF-8 form to return. */
const LONE_SURROGATE = /\p{Cs}/u

/**
 * Checks `state` before anything is redirected: given at most once, text that can be
 * returned exactly (UTF-8; `rawValues` are the still percent-encoded values of the query
 * string, when there is one, to catch escapes that are not UTF-8), and within
 * {@link MAX_STATE_BYTES}. Each failure is an error page.
 */
export function checkState(
  value: string | readonly string[] | undefined,
  rawValues: readonly string[] = [],
): string | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'string')
    throw new AuthorizePageError('Invalid request', 'state was given more than once.')
  if (LONE_SURROGATE.test(value) || rawValues.some((raw) => !isUtf8Escaped(raw))) {
    throw new AuthorizePageError(
      'Invalid request',
      'state must be text (UTF-8), so that it can be returned to the application exactly.',
    )
  }
  if (Buffer.byteLength(value, 'utf8') > MAX_STATE_BYTES) {
    throw new AuthorizePageError(
      'Invalid request',
      `state is longer than ${MAX_STATE_BYTES} bytes, so it cannot be returned to the application. Nothing was sent.`,
    )
  }
  return value
}

/**
 * The raw (still percent-encoded) values of `name` in a query string, as a form decoder
 * would split it. Only for checking their encoding: the decoded values come from the parser.
 */
export function rawQueryValues(url: string, name: string): string[] {
  const start = url.indexOf('?')
  if (start < 0) return []
  const values: string[] = []
  for (const pair of url.slice(start + 1).split('&')) {
    const equals = pair.indexOf('=')
    const key = equals < 0 ? pair : pair.slice(0, equals)
    if (key === name || decodedKey(key) === name)
      values.push(equals < 0 ? '' : pair.slice(equals + 1))
  }
  return values
}

/** A form-encoded key as the parser reads it (`st%61te` is `state`); undefined if not text. */
function decodedKey(key: string): string | undefined {
  try {
    return decodeURIComponent(key.replaceAll('+', ' '))
  } catch {
    return undefined
  }
}

/** Whether the percent escapes of a raw form value decode to UTF-8 text. */
function isUtf8Escaped(raw: string): boolean {
  if (!raw.includes('%')) return true
  try {
    decodeURIComponent(raw.replace(ESCAPE, (match, hex) => (hex ? match : '%25')))
    return true
  } catch {
    return false
  }
}
