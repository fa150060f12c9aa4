/**
 * How long a valid Client ID Metadata Document is used before it is fetched again: what its
 * `Cache-Control: max-age` says (RFC 9111 §5.2.2.1), never less than 30 seconds (so a tool
 * cannot make Portico fetch on every request) and never more than 24 hours (so a changed or
 * withdrawn document takes effect within a day). Without `max-age`, 5 minutes.
 */
export const MIN_CACHE_SECONDS = 30
export const MAX_CACHE_SECONDS = 24 * 3600
export const DEFAULT_CACHE_SECONDS = 5 * 60

/** Seconds to keep a document served with this `Cache-Control` header. */
export function cacheSeconds(cacheControl: string | undefined): number {
  const directives = (cacheControl ?? '')
    .toLowerCase()
    .split(',')
    .map((d) => d.trim())
  if (directives.some((d) => d === 'no-store' || d === 'no-cache')) return MIN_CACHE_SECONDS
  const maxAge = directives.find((d) => /^max-age=\d+$/.test(d))
  if (maxAge === undefined) return DEFAULT_CACHE_SECONDS
  const seconds = Number(maxAge.slice('max-age='.length))
  return Math.min(MAX_CACHE_SECONDS, Math.max(MIN_CACHE_SECONDS, seconds))
}
