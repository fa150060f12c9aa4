import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)

/**
 * A CommonJS package loaded the first time it is asked for, not when Portico starts: the
 * PostgreSQL driver, the Redis client and the outbound HTTP client are large (3.1, 2.4 and
 * 5.2 MB of heap once loaded, Node 20) and a deployment on SQLite without Redis that never
 * fetches a client's metadata document uses none of them. Every byte a server holds is marked
 * again at each major garbage collection, which stops the requests in flight.
 */
export function lazyModule<T>(name: string): () => T {
  let loaded: T | undefined
  return () => {
    loaded ??= require(name) as T
    return loaded
  }
}
