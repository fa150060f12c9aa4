import fc from 'fast-check'
import { expect } from 'vitest'
import type { TestServer } from '../support/server.js'

/** Every fuzz run is reproducible: a fixed seed, and a modest number of runs. */
export const FUZZ = { seed: 424_242, numRuns: 100 } as const

/** Values that break parsers, databases and templates, plus random text of every kind. */
export function nasty(extra: readonly string[] = []): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.string({ maxLength: 40 }) },
    { weight: 2, arbitrary: fc.string({ maxLength: 40, unit: 'binary' }) },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        '',
        ' ',
        '\u0000',
        'a\u0000b',
        '%00',
        '%',
        '%zz',
        '\\',
        '"',
        "'",
        '\r\n',
        '\uD800',
        '😀',
        '\u202e',
        '../../etc/passwd',
        'null',
        'undefined',
        'true',
        '0',
        '-1',
        '1e309',
        '__proto__',
        'constructor',
        'toString',
        '<script>alert(1)</script>',
        '"><img src=x onerror=alert(1)>',
        'javascript:alert(1)',
        "' OR '1'='1",
        '$' + '{7*7}',
        'A'.repeat(3000),
        'pac_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
        'pat_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
        'prt_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
        'rs_x',
        'openid',
        'S256',
        'plain',
        'authorization_code',
        'refresh_token',
        'http://127.0.0.1:49152/callback',
        'https://evil.example/cb',
      ),
    },
    ...(extra.length > 0 ? [{ weight: 3, arbitrary: fc.constantFrom(...extra) }] : []),
  )
}

/** Printable ASCII only: what an HTTP header value may carry through fetch(). */
export const headerText = fc.string({
  maxLength: 120,
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
})

/** Form fields: known names (sometimes repeated) and random ones, with nasty values. */
export function formFields(
  names: readonly string[],
  values: fc.Arbitrary<string>,
): fc.Arbitrary<Array<[string, string]>> {
  const name = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...names) },
    { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
  )
  return fc.array(fc.tuple(name, values), { maxLength: 12 })
}

/** A form body; URLSearchParams encodes anything, lone surrogates included. */
export function formBody(entries: ReadonlyArray<readonly [string, string]>): string {
  const body = new URLSearchParams()
  for (const [k, v] of entries) body.append(k, v)
  return body.toString()
}

/** Content types a client might send instead of the right one. */
export function contentType(right: string): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.constant(right) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        undefined,
        '',
        `${right}; charset=utf-8`,
        `${right.toUpperCase()}; charset=latin1`,
        `${right}; charset=utf-16`,
        'application/json',
        'application/x-www-form-urlencoded',
        'text/plain',
        'multipart/form-data; boundary=x',
        'application/xml',
        '*/*',
        ';;;',
        'application/json; charset="unterminated',
      ),
    },
    { weight: 1, arbitrary: headerText },
  )
}

/** Sends a body with the given content type (none when undefined). */
export function send(
  server: TestServer,
  path: string,
  method: string,
  type: string | undefined,
  body: string,
  headers: Record<string, string> = {},
): Promise<Response> {
  return server.fetch(path, {
    method,
    headers: { ...(type !== undefined && { 'content-type': type }), ...headers },
    body,
    redirect: 'manual',
  })
}

/** The text must contain none of the secrets. */
export function expectNoSecret(text: string, secrets: readonly string[], where: string): void {
  for (const secret of secrets) {
    if (secret.length >= 8) expect(text.includes(secret), `${where} leaks a secret`).toBe(false)
  }
}

/** After fuzzing: no unexpected error was logged, and no secret appears in any log line. */
export function expectCleanLogs(server: TestServer, secrets: readonly string[]): void {
  const errors = server.logs.filter((line) => Number(line.level) >= 50)
  expect(errors.map((line) => JSON.stringify(line).slice(0, 300))).toEqual([])
  expectNoSecret(server.logText(), secrets, 'the log')
}
