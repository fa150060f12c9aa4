import http from 'node:http'

/**
 * A small keep-alive HTTP client for preparing the benchmark (signing in, registering,
 * making pools of codes and tokens). The load itself comes from autocannon.
 */

export interface Reply {
  readonly status: number
  readonly headers: http.IncomingHttpHeaders
  readonly body: string
}

export interface RequestOptions {
  readonly headers?: Record<string, string>
  readonly body?: string
}

export class HttpClient {
  readonly origin: string
  private readonly agent: http.Agent

  constructor(origin: string, maxSockets = 16) {
    this.origin = origin
    this.agent = new http.Agent({ keepAlive: true, maxSockets })
  }

  request(method: string, path: string, options: RequestOptions = {}): Promise<Reply> {
    const url = new URL(path, this.origin)
    return new Promise((resolve, reject) => {
      const request = http.request(
        url,
        {
          method,
          agent: this.agent,
          headers: {
            ...options.headers,
            ...(options.body !== undefined && {
              'content-length': String(Buffer.byteLength(options.body)),
            }),
          },
          timeout: 30_000,
        },
        (response) => {
          const chunks: Buffer[] = []
          response.on('data', (chunk: Buffer) => chunks.push(chunk))
          response.on('end', () =>
            resolve({
              status: response.statusCode ?? 0,
              headers: response.headers,
              body: Buffer.concat(chunks).toString('utf8'),
            }),
          )
          response.on('error', reject)
        },
      )
      request.on('timeout', () => request.destroy(new Error(`${method} ${path}: timed out`)))
      request.on('error', reject)
      request.end(options.body)
    })
  }

  /** POSTs a form. */
  form(path: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
    return this.request('POST', path, {
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(fields).toString(),
    })
  }

  /** POSTs JSON. */
  json(path: string, value: unknown, headers: Record<string, string> = {}) {
    return this.request('POST', path, {
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(value),
    })
  }

  close(): void {
    this.agent.destroy()
  }
}

/** A browser's cookies, by name (paths and expiry are not needed on one loopback origin). */
export class CookieJar {
  private readonly cookies: Map<string, string>

  constructor(cookies: Iterable<[string, string]> = []) {
    this.cookies = new Map(cookies)
  }

  /** The Cookie header, or an empty object when the jar is empty. */
  headers(): Record<string, string> {
    if (this.cookies.size === 0) return {}
    return { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') }
  }

  /** Stores what a response's Set-Cookie lines say. */
  store(setCookie: readonly string[] | string | undefined): void {
    const lines =
      setCookie === undefined ? [] : typeof setCookie === 'string' ? [setCookie] : setCookie
    for (const line of lines) {
      const [pair = ''] = line.split(';')
      const at = pair.indexOf('=')
      if (at <= 0) continue
      const name = pair.slice(0, at).trim()
      const value = pair.slice(at + 1).trim()
      if (value === '' || /max-age=0|expires=thu, 01 jan 1970/i.test(line))
        this.cookies.delete(name)
      else this.cookies.set(name, value)
    }
  }

  clone(): CookieJar {
    return new CookieJar(this.cookies)
  }

  toString(): string {
    return this.headers().cookie ?? ''
  }
}

/** Fails with the answer when its status is not the one the step expects. */
export function expectStatus(reply: Reply, status: number, what: string): Reply {
  if (reply.status !== status) {
    throw new Error(`${what}: expected ${status}, got ${reply.status}: ${reply.body.slice(0, 300)}`)
  }
  return reply
}

/** The Location header of a redirect, resolved against the origin. */
export function locationOf(reply: Reply, origin: string): URL {
  const value = reply.headers.location
  if (!value) throw new Error(`no Location in a ${reply.status} answer`)
  return new URL(value, origin)
}

/** The value of a hidden form field in a page. */
export function formField(page: string, name: string): string | undefined {
  const match = new RegExp(`name="${name}" value="([^"]*)"`).exec(page)
  return match?.[1]?.replaceAll('&amp;', '&')
}

/** Runs `task` for 0..count-1 with at most `concurrency` at once; results in order. */
export async function inParallel<T>(
  count: number,
  concurrency: number,
  task: (index: number) => Promise<T>,
): Promise<T[]> {
  const results = new Array<T>(count)
  let next = 0
  const lane = async () => {
    while (next < count) {
      const index = next++
      results[index] = await task(index)
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, lane))
  return results
}
