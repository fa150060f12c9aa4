import { createServer } from 'node:http'

/**
 * The ceiling of the machine: plain node:http answering every request with the same small
 * JSON document, nothing else. Usage: node plain.js <port>; prints {"listening": url}.
 */

const port = Number(process.argv[2])
if (!Number.isInteger(port) || port <= 0) throw new Error('usage: plain.js <port>')

const body = Buffer.from(
  JSON.stringify({ object: 'static', status: 'ok', served_by: 'node:http', version: 1 }),
)
const headers = {
  'content-type': 'application/json; charset=utf-8',
  'content-length': String(body.length),
  'cache-control': 'no-store',
}

const server = createServer((request, response) => {
  request.resume()
  response.writeHead(200, headers)
  response.end(body)
})
server.listen(port, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ listening: `http://127.0.0.1:${port}` })}\n`)
})
const stop = () => server.close(() => process.exit(0))
process.once('SIGTERM', stop)
process.once('SIGINT', stop)
