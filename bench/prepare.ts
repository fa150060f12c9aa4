import { createHash, randomBytes } from 'node:crypto'
import {
  CookieJar,
  expectStatus,
  formField,
  HttpClient,
  inParallel,
  locationOf,
  type Reply,
} from './http.js'

/**
 * Everything a scenario needs from a server before the load starts, made through the real
 * HTTP flow as a person and a tool would: a registered public native client, a signed-in
 * browser, an access token, and pools of never-used authorization codes and refresh tokens.
 */

export type OAuthServer = 'portico' | 'oidc-provider'

export interface Person {
  readonly email: string
  readonly password: string
  readonly name: string
}

export interface Paths {
  readonly discovery: string
  readonly registration: string
  readonly authorize: string
  readonly token: string
  readonly introspection: string
  readonly userinfo: string
}

export const PATHS: Record<OAuthServer, Paths> = {
  portico: {
    discovery: '/.well-known/openid-configuration',
    registration: '/api/oauth/register',
    authorize: '/oauth/authorize',
    token: '/api/oauth/token',
    introspection: '/api/oauth/introspect',
    userinfo: '/api/oauth/userinfo',
  },
  'oidc-provider': {
    discovery: '/.well-known/openid-configuration',
    registration: '/reg',
    authorize: '/auth',
    token: '/token',
    introspection: '/token/introspection',
    userinfo: '/me',
  },
}

/**
 * What the tool asks for. Portico's token also carries the API scopes its API scenarios
 * need (and `courses:write`, `events:write`, to set them up); oidc-provider has no API.
 */
export const SCOPES: Record<OAuthServer, string> = {
  portico: 'openid profile email account:read courses:read courses:write events:read events:write',
  'oidc-provider': 'openid profile email',
}

/** The registration request of a public native client with a loopback callback, as sent to both. */
export const REDIRECT_URI = 'http://127.0.0.1:49152/callback'
export const REGISTRATION = {
  client_name: 'Bench tool',
  application_type: 'native',
  token_endpoint_auth_method: 'none',
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  redirect_uris: [REDIRECT_URI],
}

export interface Pkce {
  readonly verifier: string
  readonly challenge: string
}

export function createPkce(): Pkce {
  const verifier = randomBytes(32).toString('base64url')
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') }
}

export interface Tokens {
  readonly accessToken: string
  readonly refreshToken: string
}

/** A server ready for the scenarios. */
export interface Prepared {
  readonly server: OAuthServer
  readonly origin: string
  readonly paths: Paths
  readonly clientId: string
  /** An access token for introspection, userinfo and the API. */
  readonly accessToken: string
  /** Published public courses made through the API for the course scenarios (Portico). */
  readonly courseIds: readonly string[]
  /** Published public events, each with two tickets, made through the API (Portico). */
  readonly eventIds: readonly string[]
  authorizePath(pkce: Pkce): string
  /** Cookies of `count` browsers, each freshly signed in as the bench person. */
  signInBrowsers(count: number): Promise<string[]>
  /** `count` fresh codes, each with its own PKCE verifier: [code, verifier]. */
  makeCodes(count: number): Promise<string[][]>
  /**
   * `count` fresh refresh tokens, each from its own authorization: [refresh token]. Those
   * kept from the code exchanges of other scenarios come first; the rest are made.
   */
  makeRefreshTokens(count: number): Promise<string[][]>
  /** Keeps refresh tokens issued, and never used, during other scenarios. */
  keepRefreshTokens(tokens: readonly string[]): void
  close(): void
}

/** Browsers authorizing at once while pools are made; each one authorizes in turn. */
const POOL_LANES = 12

export async function prepare(
  server: OAuthServer,
  origin: string,
  person: Person,
): Promise<Prepared> {
  const http = new HttpClient(origin, POOL_LANES + 4)
  const paths = PATHS[server]
  const registered = expectStatus(
    await http.json(paths.registration, REGISTRATION),
    201,
    'registration',
  )
  const clientId = (JSON.parse(registered.body) as { client_id: string }).client_id

  const authorizePath = (pkce: Pkce) =>
    `${paths.authorize}?${new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
      scope: SCOPES[server],
      state: randomBytes(8).toString('hex'),
      code_challenge: pkce.challenge,
      code_challenge_method: 'S256',
    })}`

  const codeFrom = (reply: Reply): string => {
    const location = locationOf(expectStatus(reply, 303, 'redirect to the client'), origin)
    const code = location.searchParams.get('code')
    if (!location.href.startsWith(`${REDIRECT_URI}?`) || !code) {
      throw new Error(`expected a code at the redirect URI, got ${location.href}`)
    }
    if (location.searchParams.get('iss') !== origin)
      throw new Error(`wrong iss in ${location.href}`)
    return code
  }

  const exchange = async (code: string, pkce: Pkce): Promise<Tokens> => {
    const reply = await http.form(paths.token, {
      grant_type: 'authorization_code',
      code,
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
      code_verifier: pkce.verifier,
    })
    const body = JSON.parse(expectStatus(reply, 200, 'code exchange').body) as {
      access_token?: string
      refresh_token?: string
    }
    if (!body.access_token || !body.refresh_token) throw new Error(`no tokens in ${reply.body}`)
    return { accessToken: body.access_token, refreshToken: body.refresh_token }
  }

  /**
   * One authorization by a signed-in browser, approved at the consent page; the browser's
   * cookies are updated (oidc-provider gives the session a new id at every authorization,
   * so one browser can only authorize once at a time, as in real life).
   */
  const code = async (browser: CookieJar, pkce: Pkce): Promise<string> => {
    if (server === 'oidc-provider') {
      return codeFrom(await providerAuthorize(http, origin, browser, authorizePath(pkce)))
    }
    const page = expectStatus(
      await http.request('GET', authorizePath(pkce), { headers: browser.headers() }),
      200,
      'consent page',
    ).body
    const decision = await http.form(
      '/oauth/authorize/decision',
      {
        request: formField(page, 'request') ?? '',
        csrf: formField(page, 'csrf') ?? '',
        decision: 'approve',
      },
      browser.headers(),
    )
    return codeFrom(decision)
  }

  /** A browser of its own, signed in (at oidc-provider, by a first authorization). */
  const signIn = async (): Promise<{ browser: CookieJar; code: string; pkce: Pkce }> => {
    const pkce = createPkce()
    if (server === 'portico') {
      const browser = await porticoSignIn(http, person)
      return { browser, code: await code(browser, pkce), pkce }
    }
    const browser = new CookieJar()
    const reply = await providerAuthorize(http, origin, browser, authorizePath(pkce), person)
    return { browser, code: codeFrom(reply), pkce }
  }

  const first = await signIn()
  const { accessToken } = await exchange(first.code, first.pkce)
  const courseIds = server === 'portico' ? await createCourses(http, accessToken, COURSES) : []
  const eventIds = server === 'portico' ? await createEvents(http, accessToken, EVENTS) : []
  const kept: string[] = []
  let lanes: CookieJar[] | undefined
  const inLanes = async <T>(count: number, task: (browser: CookieJar) => Promise<T>) => {
    lanes ??= [
      first.browser,
      ...(await inParallel(POOL_LANES - 1, 4, async () => (await signIn()).browser)),
    ]
    const results: T[] = []
    let next = 0
    await Promise.all(
      lanes.map(async (browser) => {
        while (next < count) {
          const index = next++
          results[index] = await task(browser)
        }
      }),
    )
    return results
  }

  return {
    server,
    origin,
    paths,
    clientId,
    accessToken,
    courseIds,
    eventIds,
    authorizePath,
    signInBrowsers: (count) =>
      inParallel(count, 4, async () => (await signIn()).browser.toString()),
    makeCodes: (count) =>
      inLanes(count, async (browser) => {
        const pkce = createPkce()
        return [await code(browser, pkce), pkce.verifier]
      }),
    async makeRefreshTokens(count) {
      const reused = kept.splice(0, count).map((token) => [token])
      const made = await inLanes(count - reused.length, async (browser) => {
        const pkce = createPkce()
        return [(await exchange(await code(browser, pkce), pkce)).refreshToken]
      })
      return [...reused, ...made]
    },
    keepRefreshTokens: (tokens) => {
      kept.push(...tokens)
    },
    close: () => http.close(),
  }
}

/** Courses in the catalogue: more than one page of the 20 the list scenario asks for. */
const COURSES = 30

/** Creates and publishes `count` public courses through Portico's API; their ids. */
async function createCourses(
  http: HttpClient,
  accessToken: string,
  count: number,
): Promise<string[]> {
  const bearer = { authorization: `Bearer ${accessToken}` }
  return inParallel(count, 4, async (n) => {
    const created = await http.json(
      '/api/v1/courses',
      {
        title: `Bench course ${n + 1}`,
        subtitle: 'Made by npm run bench',
        description: '<p>A course of the benchmark catalogue.</p>',
        pricing_plans: [
          { name: 'Full access', type: 'one_time', price: { amount: 4900, currency: 'USD' } },
        ],
      },
      bearer,
    )
    const { id } = JSON.parse(expectStatus(created, 201, 'course creation').body) as { id: string }
    expectStatus(
      await http.request('POST', `/api/v1/courses/${id}/publish`, { headers: bearer }),
      200,
      'course publication',
    )
    return id
  })
}

/** Events in the calendar: more than one page of the 20 the events scenario asks for. */
const EVENTS = 30

/** Creates and publishes `count` upcoming events, each with two tickets, through the API; their ids. */
async function createEvents(
  http: HttpClient,
  accessToken: string,
  count: number,
): Promise<string[]> {
  const bearer = { authorization: `Bearer ${accessToken}` }
  const day = 86_400_000
  return inParallel(count, 4, async (n) => {
    const starts = Date.now() + (n + 2) * day
    const created = await http.json(
      '/api/v1/events',
      {
        title: `Bench event ${n + 1}`,
        description: '<p>An event of the benchmark calendar.</p>',
        starts_at: new Date(starts).toISOString(),
        ends_at: new Date(starts + 2 * 3_600_000).toISOString(),
        location: { platform: 'zoom', join_url: 'https://zoom.example/j/1' },
        tickets: [
          { name: 'Free', price: { amount: 0, currency: 'USD' } },
          { name: 'Supporter', price: { amount: 1500, currency: 'USD' }, quantity: 50 },
        ],
      },
      bearer,
    )
    const { id } = JSON.parse(expectStatus(created, 201, 'event creation').body) as { id: string }
    expectStatus(
      await http.request('POST', `/api/v1/events/${id}/publish`, { headers: bearer }),
      200,
      'event publication',
    )
    return id
  })
}

/** Signs a fresh browser in at Portico's sign-in page. */
export async function porticoSignIn(http: HttpClient, person: Person): Promise<CookieJar> {
  const browser = new CookieJar()
  const page = expectStatus(await http.request('GET', '/login'), 200, 'sign-in page')
  browser.store(page.headers['set-cookie'])
  const signedIn = await http.form(
    '/login',
    { csrf: formField(page.body, 'csrf') ?? '', email: person.email, password: person.password },
    browser.headers(),
  )
  if (locationOf(expectStatus(signedIn, 303, 'sign-in'), http.origin).pathname !== '/account') {
    throw new Error(`sign-in did not lead to /account: ${signedIn.headers.location}`)
  }
  browser.store(signedIn.headers['set-cookie'])
  return browser
}

/**
 * Follows an oidc-provider authorization to the redirect to the client: signs in when asked
 * (only with `person`), approves at the consent prompt. Returns the final redirect.
 */
async function providerAuthorize(
  http: HttpClient,
  origin: string,
  jar: CookieJar,
  path: string,
  person?: Person,
): Promise<Reply> {
  let reply = await http.request('GET', path, { headers: jar.headers() })
  for (let hop = 0; hop < 8; hop += 1) {
    jar.store(reply.headers['set-cookie'])
    const location = locationOf(expectStatus(reply, 303, 'authorization'), origin)
    if (location.origin !== origin) return reply
    const interaction = /^\/interaction\/([^/]+)$/.exec(location.pathname)?.[1]
    if (!interaction) {
      reply = await http.request('GET', `${location.pathname}${location.search}`, {
        headers: jar.headers(),
      })
      continue
    }
    if (person) {
      const page = expectStatus(
        await http.request('GET', location.pathname, { headers: jar.headers() }),
        200,
        'interaction page',
      )
      if (page.body.includes('data-prompt="login"')) {
        reply = await http.form(
          `/interaction/${interaction}/login`,
          { email: person.email, password: person.password },
          jar.headers(),
        )
        continue
      }
    }
    reply = await http.form(
      `/interaction/${interaction}/confirm`,
      { decision: 'approve' },
      jar.headers(),
    )
  }
  throw new Error('the authorization did not reach the client in 8 redirects')
}
