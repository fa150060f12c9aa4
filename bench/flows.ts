import type autocannon from 'autocannon'
import type { FlowLoad, Load, LoadFailure, RequestLoad } from './load-protocol.js'

/**
 * The requests autocannon sends for each kind of load, and the checks on every answer.
 * Everything here runs inside the load generator's process.
 */

type Request = autocannon.Request
type Headers = Request['headers']

/** What one phase (warm-up or measurement) counted. */
export class Tally {
  operations = 0
  requests = 0
  failures = 0
  readonly samples: LoadFailure[] = []
  /** Set when a pool ran out: answers after that are not checked, the run is void. */
  exhausted = false
  /** Fresh refresh tokens seen in token answers. */
  readonly harvest: string[]

  constructor(harvest: string[]) {
    this.harvest = harvest
  }

  /** Keeps the refresh token of a token answer. */
  keep(body: string): void {
    const token = REFRESH_TOKEN.exec(body)?.[1]
    if (token) this.harvest.push(token)
  }

  fail(step: string, status: number, detail: string): void {
    if (this.exhausted) return
    this.failures += 1
    if (this.samples.length < 5) this.samples.push({ step, status, detail: detail.slice(0, 300) })
  }
}

/** What the warm-up and the measurement of one job share. */
export interface JobState {
  /** Where the next pool item is. */
  next: number
  /** Signed-in browsers not authorizing right now (their cookies). */
  readonly browsers: string[]
}

export interface Built {
  readonly requests: Request[]
  /** For loads whose answers carry nothing to read: the status the response event checks. */
  readonly expect?: number
}

const FORM = { 'content-type': 'application/x-www-form-urlencoded' }
const REFRESH_TOKEN = /"refresh_token":"([^"]+)"/
const NO_REQUEST = null as unknown as Request

export function buildRequests(
  load: Load,
  tally: Tally,
  state: JobState,
  onExhausted: () => void,
): Built {
  if (load.kind === 'request') return requestLoad(load, tally, state, onExhausted)
  return {
    requests:
      load.flow === 'portico' ? porticoFlow(load, tally, state) : providerFlow(load, tally, state),
  }
}

function requestLoad(
  load: RequestLoad,
  tally: Tally,
  state: JobState,
  onExhausted: () => void,
): Built {
  const base: Request = {
    method: load.method,
    path: load.path,
    headers: load.headers,
    ...(load.body !== undefined && { body: load.body }),
  }
  const { pool } = load
  const check = (status: number, body: string, _context: object, headers: Headers) => {
    if (tally.exhausted) return
    const location = single(header(headers, 'location'))
    if (status !== load.expect) tally.fail(load.path, status, body)
    else if (load.bodyIncludes !== undefined && !body.includes(load.bodyIncludes)) {
      tally.fail(load.path, status, `body without ${load.bodyIncludes}: ${body}`)
    } else if (load.locationIs !== undefined && location !== load.locationIs) {
      tally.fail(load.path, status, `redirected to ${location} instead of ${load.locationIs}`)
    } else {
      tally.operations += 1
      if (load.harvest) tally.keep(body)
    }
  }
  // Nothing to read in the answer: the status alone, checked in the response event, which
  // spares the load generator the parsing of headers.
  if (!pool && load.bodyIncludes === undefined && load.locationIs === undefined && !load.harvest) {
    return { requests: [base], expect: load.expect }
  }
  if (!pool) return { requests: [{ ...base, onResponse: check }] }
  return {
    requests: [
      {
        ...base,
        setupRequest: (request) => {
          const item = pool.items[state.next]
          if (!item) {
            // Never present an item twice: a replayed code or refresh token revokes its grant.
            if (!tally.exhausted) setImmediate(onExhausted)
            tally.exhausted = true
            return {
              ...request,
              method: 'GET',
              path: '/.well-known/openid-configuration',
              body: '',
            }
          }
          state.next += 1
          return {
            ...request,
            body: pool.template.replace(/\{(\d)\}/g, (_, i) => item[Number(i)] ?? ''),
          }
        },
        onResponse: check,
      },
    ],
  }
}

interface FlowContext {
  browser?: string
  request?: string
  csrf?: string
  code?: string
  uid?: string
  cookie?: string
  resume?: string
}

function tokenBody(load: FlowLoad, code: string): string {
  return new URLSearchParams({
    grant_type: 'authorization_code',
    code,
    client_id: load.clientId,
    redirect_uri: load.redirectUri,
    code_verifier: load.verifier,
  }).toString()
}

function tokenStep(load: FlowLoad, tally: Tally): Request {
  return {
    method: 'POST',
    path: load.tokenPath,
    headers: FORM,
    setupRequest: (request, context) => {
      const { code } = context as FlowContext
      return code ? { ...request, body: tokenBody(load, code) } : NO_REQUEST
    },
    onResponse: (status, body) => {
      if (status !== 200 || !body.includes('"access_token"')) tally.fail('token', status, body)
      else {
        tally.operations += 1
        tally.keep(body)
      }
    },
  }
}

/**
 * The first request of an authorization: a browser not busy authorizing is taken for it.
 * Browsers come back when their authorization has reached the client.
 */
function takeBrowser(load: FlowLoad, tally: Tally, state: JobState): Request {
  return {
    method: 'GET',
    path: load.authorizePath,
    setupRequest: (request, context) => {
      const flow = context as FlowContext
      flow.browser = state.browsers.pop()
      if (flow.browser === undefined) tally.fail('browsers', 0, 'no signed-in browser left')
      flow.cookie = flow.browser
      return { ...request, headers: flow.browser ? { cookie: flow.browser } : {} }
    },
  }
}

/**
 * Portico: the consent page (the person is signed in), the approval, the code exchange.
 */
function porticoFlow(load: FlowLoad, tally: Tally, state: JobState): Request[] {
  return [
    {
      ...takeBrowser(load, tally, state),
      onResponse: (status, body, context) => {
        const flow = context as FlowContext
        flow.request = formField(body, 'request')
        flow.csrf = formField(body, 'csrf')
        if (status !== 200 || !flow.request || !flow.csrf) tally.fail('consent page', status, body)
      },
    },
    {
      method: 'POST',
      path: '/oauth/authorize/decision',
      setupRequest: (request, context) => {
        const flow = context as FlowContext
        if (!flow.request || !flow.csrf || !flow.browser) return NO_REQUEST
        const body = new URLSearchParams({
          request: flow.request,
          csrf: flow.csrf,
          decision: 'approve',
        })
        return { ...request, headers: { cookie: flow.browser, ...FORM }, body: body.toString() }
      },
      onResponse: (status, body, context, headers) => {
        const flow = context as FlowContext
        flow.code = status === 303 ? codeIn(header(headers, 'location'), load) : undefined
        if (!flow.code)
          tally.fail('approval', status, `${header(headers, 'location') ?? ''} ${body}`)
        else if (flow.browser) state.browsers.push(flow.browser)
      },
    },
    tokenStep(load, tally),
  ]
}

/**
 * oidc-provider: the authorization request (redirected to the consent interaction), the
 * consent page, the approval, the resumed authorization (redirected with the code, and a
 * new session id for the browser), the code exchange.
 */
function providerFlow(load: FlowLoad, tally: Tally, state: JobState): Request[] {
  return [
    {
      ...takeBrowser(load, tally, state),
      onResponse: (status, body, context, headers) => {
        const flow = context as FlowContext
        const path = pathOf(header(headers, 'location'))
        flow.uid = status === 303 ? /^\/interaction\/([^/?]+)$/.exec(path ?? '')?.[1] : undefined
        flow.cookie = mergeCookies(flow.cookie ?? '', header(headers, 'set-cookie'))
        if (!flow.uid) tally.fail('authorization request', status, `${path ?? ''} ${body}`)
      },
    },
    {
      method: 'GET',
      path: '/interaction',
      setupRequest: (request, context) => {
        const flow = context as FlowContext
        if (!flow.uid || !flow.cookie) return NO_REQUEST
        return { ...request, path: `/interaction/${flow.uid}`, headers: { cookie: flow.cookie } }
      },
      onResponse: (status, body) => {
        if (status !== 200 || !body.includes('data-prompt="consent"')) {
          tally.fail('consent page', status, body)
        }
      },
    },
    {
      method: 'POST',
      path: '/interaction',
      setupRequest: (request, context) => {
        const flow = context as FlowContext
        if (!flow.uid || !flow.cookie) return NO_REQUEST
        return {
          ...request,
          path: `/interaction/${flow.uid}/confirm`,
          headers: { cookie: flow.cookie, ...FORM },
          body: 'decision=approve',
        }
      },
      onResponse: (status, body, context, headers) => {
        const flow = context as FlowContext
        flow.resume = status === 303 ? pathOf(header(headers, 'location')) : undefined
        flow.cookie = mergeCookies(flow.cookie ?? '', header(headers, 'set-cookie'))
        if (!flow.resume) tally.fail('approval', status, body)
      },
    },
    {
      method: 'GET',
      path: '/auth',
      setupRequest: (request, context) => {
        const flow = context as FlowContext
        if (!flow.resume || !flow.cookie) return NO_REQUEST
        return { ...request, path: flow.resume, headers: { cookie: flow.cookie } }
      },
      onResponse: (status, body, context, headers) => {
        const flow = context as FlowContext
        flow.code = status === 303 ? codeIn(header(headers, 'location'), load) : undefined
        flow.cookie = mergeCookies(flow.cookie ?? '', header(headers, 'set-cookie'))
        if (!flow.code) tally.fail('resumed authorization', status, body)
        else state.browsers.push(flow.cookie)
      },
    },
    tokenStep(load, tally),
  ]
}

/** A header of an autocannon answer, whatever the case of its name. */
function header(headers: Headers, name: string): string | string[] | undefined {
  if (!headers) return undefined
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return value
  }
  return undefined
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value
}

function pathOf(location: string | string[] | undefined): string | undefined {
  const value = single(location)
  if (!value) return undefined
  const url = new URL(value, 'http://127.0.0.1')
  return `${url.pathname}${url.search}`
}

/** The code in a redirect to the client, after checking it goes to the registered URI. */
function codeIn(location: string | string[] | undefined, load: FlowLoad): string | undefined {
  const value = single(location)
  if (!value?.startsWith(`${load.redirectUri}?`)) return undefined
  return new URL(value).searchParams.get('code') ?? undefined
}

/** The Cookie header after a response's Set-Cookie lines. */
export function mergeCookies(cookie: string, setCookie: string | string[] | undefined): string {
  const jar = new Map(
    cookie
      .split('; ')
      .filter(Boolean)
      .map((pair) => {
        const at = pair.indexOf('=')
        return [pair.slice(0, at), pair.slice(at + 1)] as const
      }),
  )
  const lines = setCookie === undefined ? [] : Array.isArray(setCookie) ? setCookie : [setCookie]
  for (const line of lines) {
    const [pair = ''] = line.split(';')
    const at = pair.indexOf('=')
    if (at <= 0) continue
    const value = pair.slice(at + 1).trim()
    if (value === '') jar.delete(pair.slice(0, at).trim())
    else jar.set(pair.slice(0, at).trim(), value)
  }
  return [...jar].map(([k, v]) => `${k}=${v}`).join('; ')
}

function formField(page: string, name: string): string | undefined {
  const match = new RegExp(`name="${name}" value="([^"]*)"`).exec(page)
  return match?.[1]?.replaceAll('&amp;', '&')
}
