import { Writable } from 'node:stream'
import { pino } from 'pino'
import { describe, expect, it, vi } from 'vitest'
import { LazyRequestLogger } from './request-logger.js'

function capture(level: pino.Level) {
  const lines: Array<Record<string, unknown>> = []
  const sink = new Writable({
    write(chunk, _encoding, callback) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line))
      callback()
    },
  })
  return { logger: pino({ level }, sink), lines }
}

describe('the lazy request logger', () => {
  it('makes no child for a request that logs nothing, or only below the level', () => {
    const { logger } = capture('info')
    const child = vi.spyOn(logger, 'child')
    const log = new LazyRequestLogger(logger, { request_id: 'req_1' }, {})
    log.debug('not written')
    log.trace({ a: 1 }, 'not written')
    expect(log.level).toBe('info')
    expect(log.isLevelEnabled('debug')).toBe(false)
    expect(child).not.toHaveBeenCalled()
  })

  it('writes with the request id, through one child made on the first line', async () => {
    const { logger, lines } = capture('info')
    const child = vi.spyOn(logger, 'child')
    const log = new LazyRequestLogger(logger, { request_id: 'req_2' }, {})
    log.info({ event: 'registration' }, 'client registered')
    log.error(new Error('boom'))
    log.warn('plain message')
    await new Promise((resolve) => setImmediate(resolve))
    expect(child).toHaveBeenCalledTimes(1)
    expect(lines).toMatchObject([
      { level: 30, request_id: 'req_2', event: 'registration', msg: 'client registered' },
      { level: 50, request_id: 'req_2', err: { message: 'boom' } },
      { level: 40, request_id: 'req_2', msg: 'plain message' },
    ])
  })

  it('hands out children of the request child, and follows a level set on it', async () => {
    const { logger, lines } = capture('info')
    const log = new LazyRequestLogger(logger, { request_id: 'req_3' }, {})
    log.child({ part: 'hook' }).info('from a child')
    log.level = 'debug'
    log.debug('now written')
    await new Promise((resolve) => setImmediate(resolve))
    expect(lines).toMatchObject([
      { request_id: 'req_3', part: 'hook', msg: 'from a child' },
      { level: 20, request_id: 'req_3', msg: 'now written' },
    ])
  })
})

describe('a route with a log level of its own', () => {
  it('logs at that level, not at the level of the app', async () => {
    const { logger, lines } = capture('info')
    const log = new LazyRequestLogger(logger, { request_id: 'req_4' }, { level: 'debug' })
    expect(log.isLevelEnabled('debug')).toBe(true)
    log.debug('written at the route level')
    await new Promise((resolve) => setImmediate(resolve))
    expect(lines).toMatchObject([{ level: 20, request_id: 'req_4' }])
  })
})
