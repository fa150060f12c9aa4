import { request } from 'node:http'

/** A form POST that the server has begun to read but cannot finish: its body is half sent. */
export interface HeldRequest {
  /** Resolves once the headers and the first half of the body are on a connected socket. */
  readonly sent: Promise<void>
  /** Resolves with the status if the server ever answers; rejects when the connection is cut. */
  readonly answered: Promise<number>
}

/**
 * POSTs `fields` as a form to `path`, announcing the whole body's length but sending only its
 * first half, and never the rest: the request stays in flight until the connection ends. A
 * fault test uses it to know, without timing, that a request is in flight when it acts.
 */
export function heldFormRequest(
  url: string,
  path: string,
  fields: Readonly<Record<string, string>>,
): HeldRequest {
  const body = new URLSearchParams(fields).toString()
  const { hostname, port } = new URL(url)
  const req = request({
    host: hostname,
    port,
    method: 'POST',
    path,
    agent: false,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'content-length': Buffer.byteLength(body),
    },
  })
  const answered = new Promise<number>((resolve, reject) => {
    req.on('response', (res) => {
      res.resume()
      resolve(res.statusCode ?? 0)
    })
    req.on('error', reject)
  })
  const sent = new Promise<void>((resolve, reject) => {
    req.on('error', reject)
    req.on('socket', (socket) => {
      socket.on('connect', () => {
        req.write(body.slice(0, Math.floor(body.length / 2)), (error) =>
          error ? reject(error) : resolve(),
        )
      })
    })
  })
  return { sent, answered }
}
