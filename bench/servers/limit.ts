import { createServer } from 'node:http'
import v8 from 'node:v8'
import { refresh, refuseToken, sendToken, TOKEN_PATH } from './limit/refresh.js'
import { refuse, send } from './limit/responses.js'
import { answer } from './limit/routes.js'
import { postgresStore, sqliteStore } from './limit/store.js'

/**
 * The limit server: plain node:http doing, for each API read the benchmark measures, the
 * work Portico cannot avoid and nothing else, on Portico's own database. Per request: the
 * Authorization header parsed, the token's SHA-256, one prepared lookup of token, grant and
 * person (expiry, revocation, disabled person) — for one course joined to the course's row in
 * the same statement — the scope and the role's allowance, the same rows read with prepared
 * statements and handed over as arrays (better-sqlite3 raw, pg rowMode 'array'; the events
 * still as objects), each projection one object literal read by column position, one
 * JSON.stringify, the ETag where Portico sends one, and the same response headers. Nothing is
 * kept between requests but the prepared statements. Written for `npm run bench` only; the
 * bench compares its answers with Portico's on a sample before measuring, so it cannot do less.
 *
 * It also answers the refresh-token grant as Portico must: the form read, two new 256-bit
 * tokens, then the client and the presented refresh token (with its grant and person) checked
 * and the rotation, the new tokens and the grant's use written as one atomic step: ONE
 * statement on PostgreSQL (data-modifying CTEs, no BEGIN/COMMIT), one transaction of the read
 * and four writes on SQLite.
 *
 * Usage: node limit.js <port> <database url> <issuer>; prints {"listening": url}.
 *
 * Its parts, in limit/: the SQL (sql.ts), the store on either database (store.ts), the caller
 * and their role (caller.ts), the projections (views.ts), the routes (routes.ts), the
 * refresh-token grant (refresh.ts), the responses (responses.ts), a refusal (refusal.ts), and
 * the random bytes of tokens and request ids (random.ts).
 */

// The V8 setting `portico serve` runs with (src/platform/v8-heap.ts), so that both servers
// run on the same runtime; this server's old generation stayed flat with and without it.
v8.setFlagsFromString('--no-allocation-site-pretenuring')

// —— the server ——

const [portArg, databaseUrl, issuer] = process.argv.slice(2)
const port = Number(portArg)
if (!Number.isInteger(port) || port <= 0 || !databaseUrl || !issuer)
  throw new Error('usage: limit.js <port> <database url> <issuer>')
const store = databaseUrl.startsWith('postgres')
  ? postgresStore(databaseUrl)
  : sqliteStore(databaseUrl.replace(/^sqlite:/, ''))

const server = createServer((request, response) => {
  if (request.method === 'POST' && request.url === TOKEN_PATH) {
    refresh(store, request).then(
      (body) => sendToken(response, 200, body),
      (error: unknown) => refuseToken(response, error),
    )
    return
  }
  request.resume()
  answer(store, request, issuer).then(
    (result) => send(request, response, result),
    (error: unknown) => refuse(response, error),
  )
})
// Portico's keep-alive (its Keep-Alive header says timeout=72).
server.keepAliveTimeout = 72_000
server.listen(port, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ listening: `http://127.0.0.1:${port}` })}\n`)
})
const stop = () => server.close(() => process.exit(0))
process.once('SIGTERM', stop)
process.once('SIGINT', stop)
