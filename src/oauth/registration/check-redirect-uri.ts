/**
 * Redirect-URI rules. Self-service registration takes only loopback callbacks written
 * exactly as `http://127.0.0.1:<port>/<path>` (RFC 8252 §7.3, §8.3). The string is judged
 * as sent: any spelling a URL parser would rewrite (other forms of 127.0.0.1, case, dot or
 * encoded-dot segments, default ports) is refused, so what is stored is what is compared.
 */

export const LOOPBACK_RULE =
  'redirect URIs must be loopback callbacks written exactly as http://127.0.0.1:<port>/<path> ' +
  '(explicit port 1-65535, a path without dot segments, encoded dots, semicolons or asterisks, ' +
  'no query, fragment or user-info)'

export const INTEGRATION_RULE =
  'integration redirect URIs must be absolute https URLs in canonical form without a fragment or user-info, ' +
  'or loopback callbacks of the form http://127.0.0.1:<port>/<path>'

const MAX_LENGTH = 2000

/** A DNS name (no trailing dot, no `*` an operator could mistake for a wildcard) or an IP literal. */
const HOSTNAME = /^(?:[a-z0-9-]+\.)*[a-z0-9-]+$|^\[[0-9a-f:.]+\]$/

export interface LoopbackOptions {
  /** Also accept `localhost` and `[::1]` (RFC 8252 §7.3; off by default). */
  readonly allowHostnames: boolean
}

// pchar of RFC 3986 §3.3 (minus '%', checked separately) plus '/' between segments.
const PATH = String.raw`/[A-Za-z0-9\-._~!$&'()*+,;=:@/%]*`
const PORT = '[1-9][0-9]{0,4}'
const LOOPBACK_IPV4 = new RegExp(String.raw`^http://127\.0\.0\.1:(${PORT})(${PATH})$`)
const LOOPBACK_ANY = new RegExp(
  String.raw`^http://(?:127\.0\.0\.1|localhost|\[::1\]):(${PORT})(${PATH})$`,
)

/** True when `uri` is a loopback callback that self-service registration accepts. */
export function isAllowedLoopbackUri(uri: string, options: LoopbackOptions): boolean {
  if (uri.length > MAX_LENGTH) return false
  const match = (options.allowHostnames ? LOOPBACK_ANY : LOOPBACK_IPV4).exec(uri)
  if (!match) return false
  const port = Number(match[1])
  const path = match[2] ?? ''
  if (port > 65535 || !isCleanPath(path)) return false
  // The parser must read back the same host and path (it drops port 80 as the default,
  // which is harmless: the string as registered is what is compared later).
  try {
    const url = new URL(uri)
    return url.pathname === path && uri.startsWith(`http://${url.hostname}:`)
  } catch {
    return false
  }
}

const PORTLESS_LOOPBACK_IPV4 = new RegExp(String.raw`^http://127\.0\.0\.1(${PATH})$`)
const PORTLESS_LOOPBACK_ANY = new RegExp(String.raw`^http://(?:127\.0\.0\.1|\[::1\])(${PATH})$`)

/**
 * True when `uri` is a loopback IP callback written without a port, as Client ID Metadata
 * Documents publish them (`http://127.0.0.1/callback`): it matches any port (RFC 8252 §7.3).
 * `[::1]` only where loopback host names are allowed; `localhost` never, as the port of a
 * name is not the loopback interface's to choose.
 */
export function isAllowedPortlessLoopbackUri(uri: string, options: LoopbackOptions): boolean {
  if (uri.length > MAX_LENGTH) return false
  const match = (options.allowHostnames ? PORTLESS_LOOPBACK_ANY : PORTLESS_LOOPBACK_IPV4).exec(uri)
  const path = match?.[1]
  if (path === undefined || !isCleanPath(path)) return false
  try {
    return new URL(uri).href === uri
  } catch {
    return false
  }
}

/** True when `uri` may be registered by an operator for an integration. */
export function isAllowedIntegrationUri(uri: string): boolean {
  if (isAllowedLoopbackUri(uri, { allowHostnames: false })) return true
  if (uri.length > MAX_LENGTH || !uri.startsWith('https://')) return false
  // Only printable ASCII: no spaces, controls, backslashes or fragments.
  if (!/^[\x21-\x7e]+$/.test(uri) || /[\\#]/.test(uri)) return false
  let url: URL
  try {
    url = new URL(uri)
  } catch {
    return false
  }
  if (url.username || url.password || !HOSTNAME.test(url.hostname)) return false
  const pathOnly = url.pathname
  return isCleanPath(pathOnly) && isCanonical(uri)
}

/**
 * No path that other software reads otherwise than Portico's string comparison does, judged
 * on the string as sent (nothing is decoded first):
 * - dot segments in any spelling: `.`, `..`, any segment of dots only (Windows drops
 *   trailing dots), and every encoded dot (`%2e%2e`, `%2E.`, `.%2e`);
 * - an encoded `%` (`%252e` is a dot to software that decodes twice);
 * - `;` path parameters: Tomcat and Jetty drop `;…` from a segment, so `/a/..;/cb` is `/cb`
 *   there (RFC 3986 §3.3 leaves their meaning to each scheme);
 * - `*`, a wildcard to some matchers;
 * - encoded slashes, backslashes and NULs, malformed escapes, and empty segments.
 */
function isCleanPath(path: string): boolean {
  if (path.split('/').some((segment) => /^\.+$/.test(segment))) return false
  if (/[;*]/.test(path)) return false
  if (/%(?![0-9A-Fa-f]{2})/.test(path)) return false
  if (/%(2e|2f|5c|00|25)/i.test(path)) return false
  return !path.includes('//')
}

/** The WHATWG parser leaves the string exactly as written: nothing it would normalise. */
function isCanonical(uri: string): boolean {
  try {
    return new URL(uri).href === uri
  } catch {
    return false
  }
}

const LOOPBACK_IP_PRESENTED = /^http:\/\/(127\.0\.0\.1|\[::1\]):([1-9][0-9]{0,4})(\/.*)$/
const LOOPBACK_IP_REGISTERED = /^http:\/\/(127\.0\.0\.1|\[::1\])(?::[0-9]+)?(\/.*)$/

/**
 * Whether a redirect URI presented at the authorization endpoint matches a registered one:
 * exact string comparison, except that for registered loopback IP callbacks
 * (`http://127.0.0.1`, and `http://[::1]` where allowed) the port may differ (RFC 8252 §7.3),
 * since a native app picks a free port each time; one registered without a port (as Client
 * ID Metadata Documents write them) matches that host and path on any port. Host, path and
 * everything else compare exactly.
 */
export function redirectUriMatches(registered: readonly string[], presented: string): boolean {
  if (registered.includes(presented)) return true
  const loopback = LOOPBACK_IP_PRESENTED.exec(presented)
  if (!loopback || Number(loopback[2]) > 65535) return false
  const withoutPort = `http://${loopback[1]}${loopback[3]}`
  return registered.some((uri) => {
    const r = LOOPBACK_IP_REGISTERED.exec(uri)
    return r !== null && `http://${r[1]}${r[2]}` === withoutPort
  })
}
