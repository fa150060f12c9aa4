/**
 * Percent-encoded unreserved characters in the path are decoded before routing (RFC 3986
 * §6.2.2.2: `/%6cogin` and `/login` are the same resource), so that everything after
 * routing (which routes are pages, the request log, rate limits) sees one spelling of each
 * path. Reserved characters stay encoded (`%2F` is not `/`, `%25` not `%`); the query
 * string is left exactly as sent.
 */
const UNRESERVED_ESCAPE = /%(?:[46][1-9A-Fa-f]|[57][0-9Aa]|3[0-9]|2[DEde]|5[Ff]|7[Ee])/g

export function normalisePath(url: string): string {
  const query = url.indexOf('?')
  const path = query < 0 ? url : url.slice(0, query)
  if (!path.includes('%')) return url
  const normalised = path.replace(UNRESERVED_ESCAPE, (match) =>
    String.fromCharCode(Number.parseInt(match.slice(1), 16)),
  )
  return query < 0 ? normalised : normalised + url.slice(query)
}
