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
      while (/\s/.test(text[next] ?? '')) next++
      if (keys && text[next] === ':') {
        const key = JSON.parse(text.slice(i, end + 1)) as string
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
