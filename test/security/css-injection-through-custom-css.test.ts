import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { apiClient } from '../http/api-resources/conventions.js'
import { readJson } from '../support/http.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { issue } from '../support/token-lifecycle.js'

/**
 * CSS injection through the school's `custom_css`, which its site renders into a `<style>`
 * element of every page: imports, script URLs, IE expressions and bindings, url() to
 * anything but https images, and the same spelled with CSS escapes or split by comments,
 * are refused with 422 (`custom_css`, code `unsafe`, a message naming what was refused),
 * and the stored stylesheet stays as it was.
 */

const ATTACKS: readonly [string, string, RegExp][] = [
  ['@import', '@import url(https://evil.example/x.css);', /@import/],
  ['CSS escape-spelled @import', '@\\69mport "https://evil.example/x.css";', /@import/],
  ['@import with a comment inside the keyword', '@im/**/port "x.css";', /at-rule|@import/],
  ['url() to a non-https image', 'body{background:url(http://evil.example/p.gif)}', /https/],
  [
    'url() to a font (not an image)',
    '@font-face{font-family:x;src:url(https://e.example/f)}',
    /@font-face/,
  ],
  ['escape-spelled javascript: URL', 'a{background:url(java\\73 cript:alert\\28 1\\29)}', /https/],
  ['escape-spelled javascript: string', 'a{content:"java\\73 cript:alert(1)"}', /script/],
  ['expression()', 'a{width:expression(alert(1))}', /expression/],
  ['expression() split by a comment', 'a{width:expr/**/ession(alert(1))}', /expression/],
  ['behavior (HTC)', 'a{behavior:url(x.htc)}', /behavior/],
  ['escape-spelled behavior', 'a{beh\\61vior:url(x.htc)}', /behavior/],
  ['-moz-binding (XBL)', 'a{-moz-binding:url(https://e.example/x.xml#x)}', /binding/],
  ['breaking out of the style element', 'a{}</style><script>alert(1)</script>', /style element/],
]

const SAFE = '.hero{background:url(https://cdn.example/hero.jpg) center/cover;color:#fff}'

let server: TestServer
let call: ReturnType<typeof apiClient>
beforeAll(async () => {
  server = await startTestServer()
  const { accessToken } = await issue(server, {
    role: 'editor',
    scope: 'appearance:read appearance:write',
  })
  call = apiClient(server, accessToken)
  const stored = await call('/api/v1/appearance', { method: 'PATCH', json: { custom_css: SAFE } })
  expect(stored.status).toBe(200)
})
afterAll(async () => {
  await server?.close()
})

describe('custom_css is refused with 422, and what was stored stays', () => {
  for (const [attack, css, words] of ATTACKS) {
    it(`refuses ${attack}`, async () => {
      const response = await call('/api/v1/appearance', {
        method: 'PATCH',
        json: { custom_css: css },
      })
      expect(response.status).toBe(422)
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/)
      const body = await readJson(response)
      expect(body.errors).toHaveLength(1)
      expect(body.errors[0]).toMatchObject({ field: 'custom_css', code: 'unsafe' })
      expect(body.errors[0].message).toMatch(words)
      expect((await readJson(await call('/api/v1/appearance'))).custom_css).toBe(SAFE)
    })
  }

  it('refuses a list or an object in place of the stylesheet', async () => {
    for (const custom_css of [['a{}'], { css: 'a{}' }, 42]) {
      const response = await call('/api/v1/appearance', { method: 'PATCH', json: { custom_css } })
      expect(response.status).toBe(422)
      expect((await readJson(response)).errors[0]).toMatchObject({
        field: 'custom_css',
        code: 'type',
      })
    }
  })

  it('accepts ordinary CSS with https images, media queries and comments', async () => {
    const css = `/* brand */ @media (width < 600px){${SAFE}} a:hover{color:var(--brand,#0969da)}`
    const response = await call('/api/v1/appearance', {
      method: 'PATCH',
      json: { custom_css: css },
    })
    expect(response.status).toBe(200)
    expect((await readJson(response)).custom_css).toBe(css)
  })
})
