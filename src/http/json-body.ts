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

/** Scans JSON text already known to be valid for duplicate or forbidden object keys. */
function findKeyProblem(text: string): string | undefined {
  const stack: Array<Set<string> | null> = []
  let i = 0
  while (i < text.length) {
    const ch = text[i]
    if (ch === '{') stack.push(new Set())
    else if (ch === '[') stack.push(null)
    else if (ch === '}' || ch === ']') stack.pop()
    else if (ch === '"') {
      let end = i + 1
      while (text[end] !== '"') end += text[end] === '\\' ? 2 : 1
      const keys = stack[stack.length - 1]
      let next = end + 1
      while (isJsonSpace(text.charCodeAt(next))) next++
      if (keys && text[next] === ':') {
        // A key without an escape is its own text; one with an escape is decoded.
        const raw = text.slice(i + 1, end)
        const key = raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw
        if (key === '__proto__' || key === 'constructor' || key === 'prototype')
          return `the key "${key}" is not allowed`
        if (keys.has(key)) return `the key "${key}" appears twice in one object`
        keys.add(key)
      }
      i = end
    }
    i++
  }
  return undefined
}
