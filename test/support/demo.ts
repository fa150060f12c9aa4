import { afterAll, beforeAll, expect } from 'vitest'
import { loadDemo } from '../../src/api/demo/demo.js'
import { startTestServer, type TestServer } from './server.js'

/**
 * A server with the demo school loaded, started before the tests of the enclosing `describe`
 * (or file) and closed after them. Returns a getter: the server exists only once they run.
 */
export function useDemoServer(): () => TestServer {
  let server: TestServer | undefined
  beforeAll(async () => {
    server = await startTestServer()
    expect(await loadDemo(server.deps)).toBe(true)
  })
  afterAll(async () => {
    await server?.close()
  })
  return () => {
    if (!server) throw new Error('the demo server starts in beforeAll')
    return server
  }
}
