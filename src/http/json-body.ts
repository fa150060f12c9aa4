import { OAuthError } from '../oauth/errors.js'

/**
 * Parses a JSON body strictly: a syntax error, a key given twice in one object (two parsers
 * could read different values), or a prototype-polluting key is refused, never guessed at.
 */
export function parseStrictJson(text: string): unknown {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw new OAuthError('invalid_request', 'the request body is not valid JSON')
  }
  const problem = findKeyProblem(text)
  if (problem) throw new OAuthError('invalid_request', problem)
  return value
}

/** JSON's whitespace between tokens (RFC 8259 §2): space, tab, line feed, carriage return. */
const isJsonSpace = (code: number) =>
  code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d

/** Objects with up to this many keys are checked against a list, larger ones a set. */
const LISTED_KEYS = 16

/**
 * Scans JSON text already known to be valid for duplicate or forbidden object keys. An
 * object's keys are held in a list while they are few (a set costs more to make than a short
 * list costs to search), in a set once they are more, so a large object stays linear.
 */
function findKeyProblem(text: string): string | undefined {
  const stack: Array<string[] | Set<string> | null> = []
  const length = text.length
  let i = 0
  while (i < length) {
    const ch = text.charCodeAt(i)
    if (ch === 0x7b /* { */) stack.push([])
    else if (ch === 0x5b /* [ */) stack.push(null)
    else if (ch === 0x7d /* } */ || ch === 0x5d /* ] */) stack.pop()
    else if (ch === 0x22 /* " */) {
      let end = i + 1
      let escaped = false
      for (let c = text.charCodeAt(end); c !== 0x22; c = text.charCodeAt(end))
        if (c === 0x5c /* \ */) {
          escaped = true
          end += 2
        } else end += 1
      const keys = stack[stack.length - 1]
      let next = end + 1
      while (isJsonSpace(text.charCodeAt(next))) next++
      if (keys && text.charCodeAt(next) === 0x3a /* : */) {
        // A key without an escape is its own text; one with an escape is decoded.
        const raw = text.slice(i + 1, end)
        const key = escaped ? (JSON.parse(`"${raw}"`) as string) : raw
        if (key === '__proto__' || key === 'constructor' || key === 'prototype')
          return `the key "${key}" is not allowed`
        if (Array.isArray(keys) ? keys.includes(key) : keys.has(key))
          return `the key "${key}" appears twice in one object`
        if (!Array.isArray(keys)) keys.add(key)
        else if (keys.length < LISTED_KEYS) keys.push(key)
        else stack[stack.length - 1] = new Set([...keys, key])
      }
      i = end
    }
    i++
  }
  return undefined
}
