/** A parsed `WWW-Authenticate` challenge (RFC 9110 §11.6.1): the scheme and its parameters. */
export interface Challenge {
  readonly scheme: string
  readonly params: Readonly<Record<string, string>>
}

const PARAM = /\s*([A-Za-z0-9_-]+)=(?:"((?:[^"\\]|\\.)*)"|([^\s,"]+))\s*(,|$)/y

/**
 * Parses a header holding one challenge with auth-params, strictly: anything it cannot
 * read, or a parameter given twice, throws, so a test can never pass on a garbled header.
 */
export function parseChallenge(header: string | null): Challenge {
  if (header === null) throw new Error('no WWW-Authenticate header')
  const match = /^([A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]*)(?: +|$)/.exec(header)
  if (!match?.[1]) throw new Error(`no auth scheme in ${JSON.stringify(header)}`)
  const params: Record<string, string> = {}
  PARAM.lastIndex = match[0].length
  while (PARAM.lastIndex < header.length) {
    const start = PARAM.lastIndex
    const found = PARAM.exec(header)
    if (!found?.[1]) throw new Error(`cannot parse ${JSON.stringify(header.slice(start))}`)
    const name = found[1].toLowerCase()
    if (name in params) throw new Error(`parameter ${name} given twice`)
    params[name] = found[2] !== undefined ? found[2].replace(/\\(.)/g, '$1') : (found[3] ?? '')
    if (found[4] === ',' && PARAM.lastIndex >= header.length) throw new Error('trailing comma')
  }
  return { scheme: match[1], params }
}
