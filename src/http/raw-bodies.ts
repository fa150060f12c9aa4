import type { Readable } from 'node:stream'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { payloadTooLarge } from '../api/conventions.js'
import type { ApiOperation, BodyLimit } from '../api/framework/operation.js'
import { ProblemError } from '../api/problem.js'
import { inputOf, sendResult } from './api-operations.js'

/**
 * Reads a stream into memory, refusing (413) as soon as it passes the limit: nothing beyond
 * it is kept; the rest of the body is discarded as it arrives.
 */
function readCapped(stream: Readable, limit: BodyLimit): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    let settled = false
    const settle = (error?: unknown) => {
      if (settled) return
      settled = true
      stream.off('data', onData).off('end', onEnd).off('error', settle)
      if (error === undefined) return resolve(Buffer.concat(chunks, size))
      stream.resume()
      reject(error)
    }
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > limit.maxBytes) settle(payloadTooLarge(limit.detail))
      else chunks.push(chunk)
    }
    const onEnd = () => settle()
    stream.on('data', onData).once('end', onEnd).once('error', settle)
  })
}

/** The filename of a `Content-Disposition: attachment; filename="…"` request header. */
function filenameOf(header: string | undefined): string | undefined {
  if (!header) return undefined
  const extended = /filename\*=UTF-8''([^;]+)/i.exec(header)?.[1]
  if (extended) {
    try {
      return decodeURIComponent(extended)
    } catch {
      return undefined
    }
  }
  return /filename="([^"]*)"/i.exec(header)?.[1] ?? /filename=([^;\s]+)/i.exec(header)?.[1]
}

/**
 * The body as the operation takes it: after everything else was checked, at most its limit
 * (a declared Content-Length beyond it is refused before reading), as sent (no
 * Content-Encoding).
 */
async function bytesOf(request: FastifyRequest, limit: BodyLimit): Promise<Buffer> {
  const encoding = request.headers['content-encoding']
  if (encoding !== undefined && encoding !== 'identity')
    throw new ProblemError(415, {
      code: 'unsupported_media_type',
      title: 'Unsupported Media Type',
      detail: 'send the body without Content-Encoding',
    })
  const length = Number(request.headers['content-length'])
  if (Number.isFinite(length) && length > limit.maxBytes)
    throw payloadTooLarge(`${limit.detail}; this one has ${length}`)
  const stream = request.body as Readable | undefined
  return stream ? readCapped(stream, limit) : Buffer.alloc(0)
}

/**
 * Serves operations taking raw bodies (uploads), in a plugin of their own: no parser reads
 * the body first; each request is checked by the operation's `bodyLimit`, its body then
 * read with that cap and handed to `run` as bytes.
 */
export function bindRawOperations(api: FastifyInstance, operations: readonly ApiOperation[]): void {
  void api.register(async (raw) => {
    raw.removeAllContentTypeParsers()
    raw.addContentTypeParser('*', (_request, payload, done) => done(null, payload))
    // A refused request answers before its body is read: the rest is discarded, so the
    // connection stays usable and nothing beyond the cap is kept.
    raw.addHook('onResponse', async (request) => {
      if (request.raw.complete) return
      request.raw.unpipe()
      request.raw.resume()
    })
    for (const operation of operations) {
      const { bodyLimit } = operation
      if (!bodyLimit) continue
      raw.route({
        method: operation.method,
        url: operation.path,
        handler: async (request, reply) => {
          const filename = filenameOf(request.headers['content-disposition'])
          const input = { ...inputOf(request), body: undefined, ...(filename && { filename }) }
          const body = await bytesOf(request, bodyLimit(input))
          return sendResult(reply, await operation.run({ ...input, body }))
        },
      })
    }
  })
}
