import { expect } from 'vitest'
import type { Schema } from '../../src/storage/schema.js'
import type { TestServer } from '../support/server.js'

/** Tables whose rows a refused request must leave exactly as they were (rate counters aside). */
export const STATE_TABLES = [
  'clients',
  'users',
  'sessions',
  'authorization_requests',
  'grants',
  'authorization_codes',
  'access_tokens',
  'refresh_tokens',
  'consents',
  'resource_servers',
] as const satisfies ReadonlyArray<keyof Schema>

export type StateTable = (typeof STATE_TABLES)[number]

/**
 * Every row of the state tables, as sorted JSON lines per table: equal snapshots mean
 * nothing was inserted, changed or deleted.
 */
export async function snapshot<T extends StateTable = StateTable>(
  server: TestServer,
  tables: readonly T[] = STATE_TABLES as readonly StateTable[] as readonly T[],
): Promise<Record<T, string[]>> {
  const result = {} as Record<T, string[]>
  for (const table of tables) {
    const rows = await server.deps.database.db.selectFrom(table).selectAll().execute()
    result[table] = rows.map((row) => JSON.stringify(row)).sort()
  }
  return result
}

/** Row counts of the state tables. */
export async function rowCounts(server: TestServer): Promise<Record<StateTable, number>> {
  const counts = {} as Record<StateTable, number>
  const rows = await snapshot(server)
  for (const table of STATE_TABLES) counts[table] = rows[table].length
  return counts
}

/** RFC 6749 §4.1.2.1, §5.2: the characters error and error_description may hold. */
export const NQSCHAR = /^[\x20\x21\x23-\x5B\x5D-\x7E]*$/

/** An RFC 6749 §5.2 error body: application/json, `error`, and a printable description. */
export async function expectOAuthError(
  response: Response,
  status?: number,
): Promise<{ error: string; error_description?: string }> {
  if (status !== undefined) expect(response.status).toBe(status)
  expect(response.status).toBeGreaterThanOrEqual(400)
  expect(response.status).toBeLessThan(500)
  expect(response.headers.get('content-type')).toMatch(/^application\/json/)
  const body = (await response.json()) as { error: string; error_description?: string }
  expect(body.error).toMatch(/^[\x20\x21\x23-\x5B\x5D-\x7E]+$/)
  if (body.error_description !== undefined) expect(body.error_description).toMatch(NQSCHAR)
  return body
}

/** An RFC 9457 problem: application/problem+json with type, status and code. */
export async function expectProblem(
  response: Response,
  status?: number,
): Promise<Record<string, unknown>> {
  if (status !== undefined) expect(response.status).toBe(status)
  expect(response.status).toBeGreaterThanOrEqual(400)
  expect(response.status).toBeLessThan(500)
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/)
  const body = (await response.json()) as Record<string, unknown>
  expect(body.status).toBe(response.status)
  expect(typeof body.type).toBe('string')
  expect(typeof body.code).toBe('string')
  return body
}

/** An HTML error page with the page headers, and never a redirect. */
export async function expectHtmlPage(response: Response, status?: number): Promise<string> {
  if (status !== undefined) expect(response.status).toBe(status)
  expect(response.status).toBeLessThan(500)
  expect(response.headers.get('location')).toBeNull()
  expect(response.headers.get('content-type')).toMatch(/^text\/html/)
  expect(response.headers.get('x-frame-options')).toBe('DENY')
  const page = await response.text()
  expect(page).toMatch(/^<!doctype html>/)
  return page
}

/** Replaces the character at `index` with another one of the same alphabet. */
export function flipCharacter(token: string, index: number): string {
  const at = index < 0 ? token.length + index : index
  const c = token[at] ?? 'A'
  const replacement = c === 'A' ? 'B' : 'A'
  return `${token.slice(0, at)}${replacement}${token.slice(at + 1)}`
}
