/** A store (the database, Redis) that cannot answer right now; the request may be retried. */
export class StorageUnavailable extends Error {
  override name = 'StorageUnavailable'
}

/** Seconds a client is asked to wait before retrying while a store is unavailable. */
export const UNAVAILABLE_RETRY_AFTER = 5

/**
 * SQLSTATE classes that say the database cannot serve now, not that the query is wrong:
 * 08 connection exception, 40 transaction rollback (serialization, deadlock), 53
 * insufficient resources, 57 operator intervention (shutdown, statement timeout).
 */
const RETRYABLE_SQLSTATE = /^(08|40|53|57)[0-9A-Z]{3}$/

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
])

/** What node-postgres and its pool throw when the server is gone, slow, or being shut down. */
const PG_CONNECTION_MESSAGES =
  /^(Connection terminated|timeout exceeded when trying to connect|timeout expired|Query read timeout|Client has encountered a connection error|Client was closed and is not queryable|Cannot use a pool after calling end)/

/**
 * True when `error` means a store is unreachable, overloaded or restarting: the request
 * should be answered 503 with `Retry-After`, not 500.
 */
export function isUnavailable(error: unknown): boolean {
  if (error instanceof StorageUnavailable) return true
  if (!(error instanceof Error)) return false
  const code = (error as { code?: unknown }).code
  if (typeof code === 'string' && (RETRYABLE_SQLSTATE.test(code) || NETWORK_CODES.has(code))) {
    return true
  }
  if (PG_CONNECTION_MESSAGES.test(error.message)) return true
  // AggregateError (several addresses refused), or a wrapped cause.
  if (error instanceof AggregateError) return error.errors.some(isUnavailable)
  return error.cause !== undefined && error.cause !== error && isUnavailable(error.cause)
}
