import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { appearance } from '../../../src/api/school/appearance.resource.js'
import { readJson } from '../../support/http.js'
import { startTestServer, type TestServer } from '../../support/server.js'
import { issue } from '../../support/token-lifecycle.js'
import { apiClient, checkConventions } from './conventions.js'

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(async () => {
  await server?.close()
})

describe('/api/v1/appearance: the conventions', () => {
  checkConventions(() => server, {
    resource: appearance,
    update: { color_scheme: 'dark' },
    invalid: { body: { colors: { primary: 'blue' } }, field: 'colors.primary' },
    deniedRole: 'lecturer',
  })
})

describe('/api/v1/appearance: its own rules', () => {
  const scope = 'appearance:read appearance:write'

  it('merges a colour into the palette and resets to the defaults', async () => {
    const { accessToken } = await issue(server, { role: 'editor', scope })
    const call = apiClient(server, accessToken)
    const before = await readJson(await call('/api/v1/appearance'))
    const patched = await readJson(
      await call('/api/v1/appearance', {
        method: 'PATCH',
        json: { colors: { primary: '#000000' } },
      }),
    )
    expect(patched.colors).toEqual({ ...before.colors, primary: '#000000' })
    const reset = await call('/api/v1/appearance/reset', { method: 'POST' })
    expect(reset.status).toBe(200)
    expect((await readJson(reset)).colors).toEqual(before.colors)
  })

  it('refuses custom CSS that imports or scripts, and keeps it from the public', async () => {
    const { accessToken } = await issue(server, { scope })
    const call = apiClient(server, accessToken)
    const bad = await call('/api/v1/appearance', {
      method: 'PATCH',
      json: { custom_css: '@import url(https://evil.example/x.css);' },
    })
    expect(bad.status).toBe(422)
    expect((await readJson(bad)).errors[0]).toMatchObject({ field: 'custom_css', code: 'unsafe' })
    const good = await call('/api/v1/appearance', {
      method: 'PATCH',
      json: { custom_css: '.hero { color: red; }' },
    })
    expect((await readJson(good)).custom_css).toBe('.hero { color: red; }')
    expect(await readJson(await server.fetch('/api/v1/appearance'))).not.toHaveProperty(
      'custom_css',
    )
  })

  it('needs a url or a target for each navigation link', async () => {
    const { accessToken } = await issue(server, { scope })
    const response = await apiClient(server, accessToken)('/api/v1/appearance', {
      method: 'PATCH',
      json: { navigation: [{ label: 'About' }] },
    })
    expect(response.status).toBe(422)
    expect((await readJson(response)).errors[0].field).toBe('navigation[0]')
  })
})
