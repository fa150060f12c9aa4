import { describe, expect, it } from 'vitest'
import { type CliServer, useCliServer } from '../support/cli-server.js'
import { readJson } from '../support/http.js'

const start = useCliServer()

describe('without PORTICO_ISSUER, the issuer is the address Portico listens on', () => {
  it('only PORT set: pages, metadata and the printed hints all use that port', async () => {
    // startCliServer picks a free port and sets PORT; an empty PORTICO_ISSUER is unset.
    const server = await start({ PORTICO_ISSUER: '' })
    const { url } = server
    expect(url).not.toBe('http://127.0.0.1:3000')

    const metadata = await readJson(await fetch(`${url}/.well-known/oauth-authorization-server`))
    expect(metadata.issuer).toBe(url)
    expect(metadata.authorization_endpoint).toBe(`${url}/oauth/authorize`)
    expect(metadata.token_endpoint).toBe(`${url}/api/oauth/token`)
    const openid = await readJson(await fetch(`${url}/.well-known/openid-configuration`))
    expect(openid.issuer).toBe(url)

    const login = await fetch(`${url}/login`)
    expect(login.status).toBe(200)
    await login.arrayBuffer()

    // The first start says where to sign in and the one command that shows the metadata
    // (written once the owner exists, which can be after /healthz first answers).
    const output = await printed(server, 'What clients see')
    expect(output).toContain(`Sign in at ${url}/login`)
    expect(output).toContain(`curl -s ${url}/.well-known/oauth-authorization-server`)
    expect(output).not.toContain(':3000')
  })
})

/** The server's output once it contains `text`; fails if the process exits first. */
async function printed(server: CliServer, text: string): Promise<string> {
  const deadline = Date.now() + 20_000
  while (!server.output().includes(text)) {
    const exited = await Promise.race([
      server.exited.then(() => true),
      new Promise<false>((resolve) => setTimeout(() => resolve(false), 50)),
    ])
    if (exited || Date.now() > deadline)
      throw new Error(`never printed "${text}":\n${server.output()}`)
  }
  return server.output()
}
