import { beforeAll, describe, expect, it } from 'vitest'
import { RESOURCE_SCOPES } from '../../../src/oauth/scopes.js'
import { useDemoServer } from '../../support/demo.js'
import { type Json, readJson } from '../../support/http.js'
import { mismatches, openApiDocument } from '../../support/openapi-responses.js'
import type { TestServer } from '../../support/server.js'
import { issue } from '../../support/token-lifecycle.js'

/**
 * Every GET under /api/v1 that openapi.json declares answers what it declares, on the demo
 * school: path parameters are filled with real ids read from the lists, every page of every
 * list is read, every id of a list is fetched as an item, the enumerated query variants of the
 * reports are asked for, and each 200 is checked against its response schema (Ajv 2020, `$ref`s
 * into components) with no undocumented member. The same is done anonymously where the
 * operation has a public projection. Each path also answers one 401 and (when it names a
 * record) one 404 as the application/problem+json it declares.
 */
const API = '/api/v1'
const JSON_TYPE = 'application/json'
const PROBLEM = 'application/problem+json'

/** GET paths under /api/v1 this test does not call, with the reason (none today). */
const SKIPPED: Readonly<Record<string, string>> = {}

const paths = openApiDocument.paths as Record<string, Json>
const templates = Object.keys(paths)
  .filter((p) => (p === API || p.startsWith(`${API}/`)) && paths[p]?.get)
  .sort()
const parametersOf = (template: string): Json[] => paths[template]?.get?.parameters ?? []
const isList = (template: string) => parametersOf(template).some((p) => p.name === 'cursor')
const isPublic = (template: string) =>
  (paths[template]?.get?.security ?? []).some((s: Json) => Object.keys(s).length === 0)

interface Answer {
  readonly status: number
  readonly contentType: string
  readonly body: Json
}

/** One caller (a token or none) reading the API, with the lists it has read kept. */
class Reader {
  private readonly lists = new Map<string, Promise<Json[]>>()
  calls = 0
  private readonly server: TestServer
  private readonly token: string | undefined
  constructor(server: TestServer, token?: string) {
    this.server = server
    this.token = token
  }

  async get(path: string, token = this.token): Promise<Answer> {
    this.calls++
    const response = await this.server.fetch(path, {
      headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
    })
    const contentType = (response.headers.get('content-type') ?? '').split(';')[0] ?? ''
    return { status: response.status, contentType, body: await readJson(response) }
  }

  /** Every page of a list, as answered (the first page's status decides). */
  async pages(path: string): Promise<Array<[string, Answer]>> {
    const out: Array<[string, Answer]> = []
    let next: string | null = `${path}?limit=50`
    while (next) {
      const answer = await this.get(next)
      out.push([next, answer])
      next =
        answer.status === 200 && answer.body.has_more
          ? `${path}?limit=50&cursor=${encodeURIComponent(answer.body.next_cursor)}`
          : null
    }
    return out
  }

  /** The records of a list, read once. */
  records(path: string): Promise<Json[]> {
    let found = this.lists.get(path)
    if (!found) {
      found = this.pages(path).then((pages) => {
        const [, first] = pages[0] ?? []
        if (first?.status !== 200) return []
        return pages.flatMap(([, page]) => page.body.data as Json[])
      })
      this.lists.set(path, found)
    }
    return found
  }
}

/**
 * The concrete paths of a template, each parameter filled with every id of the list it names:
 * the path before it when that is a list (`/events/{id}/attendees/{attendee_id}`), else the
 * collection its name says (`{course_id}` of `/analytics/courses/{course_id}` → `/courses`).
 */
async function concretePaths(
  reader: Reader,
  template: string,
  filled = template,
): Promise<string[]> {
  const segments = filled.split('/')
  const index = segments.findIndex((s) => s.startsWith('{'))
  if (index < 0) return [filled]
  const name = (segments[index] as string).slice(1, -1)
  const templatePrefix = template.split('/').slice(0, index).join('/')
  const list = paths[templatePrefix]?.get
    ? segments.slice(0, index).join('/')
    : `${API}/${name.replace(/_id$/, '')}s`
  const ids = (await reader.records(list)).map((record) => String(record.id))
  const out: string[] = []
  for (const id of ids) {
    const next = [...segments.slice(0, index), encodeURIComponent(id), ...segments.slice(index + 1)]
    out.push(...(await concretePaths(reader, template, next.join('/'))))
  }
  return out
}

/**
 * A report's variants: as is, then each value of each enumerated query parameter; a required
 * text parameter (search's `q`) is given in each, as the letter a (found in most records).
 */
function variants(template: string): string[] {
  const query = parametersOf(template).filter((p) => p.in === 'query')
  const required = query
    .filter((p) => p.required === true && p.schema?.type === 'string' && !p.schema?.enum)
    .map((p) => `${p.name}=a`)
  const queries = query.flatMap((p) =>
    ((p.schema?.enum ?? []) as string[]).map((v) => `${p.name}=${v}`),
  )
  return ['', ...queries].map((q) => {
    const all = [...required, ...(q ? [q] : [])].join('&')
    return all ? `?${all}` : ''
  })
}

/** The 200 responses of one template for one reader, checked; returns the failures. */
async function walk(reader: Reader, template: string, counts: Map<string, number>) {
  const failures: string[] = []
  const check = (path: string, answer: Answer) => {
    counts.set(template, (counts.get(template) ?? 0) + 1)
    if (answer.status !== 200 || answer.contentType !== JSON_TYPE)
      failures.push(
        `${path}: ${answer.status} ${answer.contentType} ${JSON.stringify(answer.body)}`,
      )
    else
      failures.push(
        ...mismatches(template, 200, JSON_TYPE, answer.body).map((m) => `${path}: ${m}`),
      )
  }
  for (const path of await concretePaths(reader, template)) {
    if (isList(template)) for (const [page, answer] of await reader.pages(path)) check(page, answer)
    else for (const query of variants(template)) check(path + query, await reader.get(path + query))
  }
  return failures
}

/** A path of the template naming a record that does not exist (the last parameter). */
function missing(template: string, concrete: string): string {
  const segments = concrete.split('/')
  const last = template.split('/').findLastIndex((s) => s.startsWith('{'))
  const real = segments[last] as string
  segments[last] = `${real.split('_')[0]}_no_such_record`
  return segments.join('/')
}

describe('every GET under /api/v1 answers what openapi.json declares', () => {
  const demo = useDemoServer()
  let owner: Reader
  let anonymous: Reader
  const counts = new Map<string, number>()
  const publicCounts = new Map<string, number>()

  beforeAll(async () => {
    const readScopes = RESOURCE_SCOPES.filter((s) => s.endsWith(':read'))
    const { accessToken } = await issue(demo(), {
      role: 'owner',
      scope: ['openid', ...readScopes].join(' '),
    })
    owner = new Reader(demo(), accessToken)
    anonymous = new Reader(demo())
  })

  it('declares every error response of the API as application/problem+json', () => {
    const wrong: string[] = []
    for (const [path, item] of Object.entries(paths)) {
      if (!path.startsWith(API)) continue
      for (const [method, operation] of Object.entries(item as Record<string, Json>))
        for (const [status, response] of Object.entries(operation.responses ?? {}))
          if (
            Number(status) >= 400 &&
            Object.keys((response as Json).content ?? {}).join() !== PROBLEM
          )
            wrong.push(`${method.toUpperCase()} ${path} ${status}`)
    }
    expect(wrong).toEqual([])
  })

  const walked = templates.filter((t) => !(t in SKIPPED))

  it.each(walked)('GET %s: every 200 matches its schema', async (template) => {
    const failures = await walk(owner, template, counts)
    if (isPublic(template)) failures.push(...(await walk(anonymous, template, publicCounts)))
    expect(failures.slice(0, 20)).toEqual([])
    expect(counts.get(template) ?? 0, `${template}: no record to fill its path`).toBeGreaterThan(0)
  })

  it.each(walked)('GET %s: a 401 and a 404 as the problems it declares', async (template) => {
    const [path] = await concretePaths(owner, template)
    expect(path, template).toBeDefined()
    const unauthorized = await owner.get(path as string, 'not-a-token')
    expect([unauthorized.status, unauthorized.contentType]).toEqual([401, PROBLEM])
    expect(mismatches(template, 401, PROBLEM, unauthorized.body)).toEqual([])
    if (!template.includes('{')) return
    const notFound = await owner.get(missing(template, path as string))
    expect([notFound.status, notFound.contentType], missing(template, path as string)).toEqual([
      404,
      PROBLEM,
    ])
    expect(mismatches(template, 404, PROBLEM, notFound.body)).toEqual([])
  })

  it('walked every GET path but the skipped ones, each with its reason', () => {
    const lines = templates.map((t) =>
      t in SKIPPED
        ? `skipped ${t}: ${SKIPPED[t]}`
        : `${t}: ${counts.get(t) ?? 0} responses${isPublic(t) ? `, ${publicCounts.get(t) ?? 0} anonymous` : ''}`,
    )
    console.info(`${lines.join('\n')}\n${owner.calls + anonymous.calls} requests`)
    expect(walked.every((t) => (counts.get(t) ?? 0) > 0)).toBe(true)
  })
})
