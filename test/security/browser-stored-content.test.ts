import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Browser as Chromium, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { apiClient } from '../http/api-resources/conventions.js'
import { launchBrowser, newPage } from '../support/browser.js'
import { readJson } from '../support/http.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { issue } from '../support/token-lifecycle.js'

/**
 * Stored script, rendered (Chromium): what the API stores is rendered by a school's site,
 * HTML props as markup and `custom_css` in a `<style>` element. A stand-in site on loopback
 * renders them the way a site would; every payload phones home to it (`/hit/…`) or opens a
 * dialog when it runs. Rendered raw, the payloads do run (the control: the attack is real
 * in this browser); stored through the API, nothing runs and nothing is fetched, and the
 * CSS attacks Chromium honours (escape-spelled `@import` and `url()`) are refused outright.
 */

let server: TestServer
let chromium: Chromium
let call: ReturnType<typeof apiClient>
let site: Server
let origin: string
/** The document the stand-in site serves at /site. */
let document = ''
/** Paths under /hit/ that the browser requested. */
const hits: string[] = []

beforeAll(async () => {
  server = await startTestServer()
  chromium = await launchBrowser()
  call = apiClient(
    server,
    (
      await issue(server, {
        role: 'editor',
        scope: 'pages:read pages:write appearance:read appearance:write',
      })
    ).accessToken,
  )
  site = createServer((request, response) => {
    const path = request.url ?? '/'
    if (path.startsWith('/hit/')) hits.push(path)
    if (path === '/site') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      response.end(document)
    } else if (path.endsWith('.js')) {
      response.writeHead(200, { 'content-type': 'text/javascript' })
      response.end('alert("script loaded")')
    } else if (path.endsWith('.css')) {
      response.writeHead(200, { 'content-type': 'text/css' })
      response.end('body{color:red}')
    } else {
      response.writeHead(404, { 'content-type': 'text/plain' })
      response.end('not found')
    }
  })
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve))
  origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`
})
afterAll(async () => {
  await chromium?.close()
  await new Promise<void>((resolve) => (site ? site.close(() => resolve()) : resolve()))
  await server?.close()
})

/** Payloads that, when they run, open a dialog or request /hit/…; the site serves 404 for x. */
const htmlPayloads = () => [
  '<img src=x onerror="fetch(\'/hit/img-onerror\')">',
  '<script src="/hit/script.js"></script>',
  '<svg><script>fetch("/hit/svg-script")</script></svg>',
  '<iframe src="/hit/iframe"></iframe>',
  '<object data="/hit/object"></object>',
  '<link rel="stylesheet" href="/hit/link.css">',
  '<style>@import "/hit/style-import.css";</style>',
  '<details open ontoggle="fetch(\'/hit/ontoggle\')"></details>',
  '<math><mi><style><img src=x onerror="fetch(\'/hit/mxss\')"></style></mi></math>',
  '<p title="</p><img src=x onerror=fetch(\'/hit/attr-breakout\')>">x</p>',
]

/** Evaluated in the page: the body's elements that can run or load something. */
const LIVE_ELEMENTS = `[...document.body.querySelectorAll('*')]
  .filter((e) =>
    /^(script|iframe|frame|object|embed|link|style|meta|base|form)$/i.test(e.tagName) ||
    [...e.attributes].some((a) => /^on/i.test(a.name) || /^\\s*(javascript|data|vbscript):/i.test(a.value)))
  .map((e) => e.outerHTML)`

interface Rendered {
  readonly dialogs: string[]
  readonly hits: string[]
  /** Elements of the body that can run or load something: script, frames, on* handlers … */
  readonly live: string[]
}

/**
 * Renders `body` and `css` as the school's site would and reports what ran. With `expected`,
 * waits (bounded) until the site has seen that request: a positive control, never a sleep.
 */
async function render(body: string, css = '', expected?: string): Promise<Rendered> {
  hits.length = 0
  document = `<!doctype html><html><head><style>${css}</style></head><body>${body}<p id="end">end</p></body></html>`
  const page: Page = await newPage(chromium)
  const dialogs: string[] = []
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message())
    void dialog.dismiss()
  })
  try {
    await page.goto(`${origin}/site`, { waitUntil: 'load' })
    await page.locator('#end').waitFor()
    if (expected) await expect.poll(() => hits, { timeout: 8000 }).toContain(expected)
    const live = (await page.evaluate(LIVE_ELEMENTS)) as string[]
    return { dialogs, hits: [...hits], live }
  } finally {
    await page.context().close()
  }
}

describe('HTML props of page blocks, rendered by a site (Chromium)', () => {
  it('run when rendered raw (control), and do nothing once stored through the API', async () => {
    const payloads = htmlPayloads()
    const raw = await render(payloads.join('\n'), '', '/hit/script.js')
    expect(raw.dialogs).toContain('script loaded')
    expect(raw.live.length).toBeGreaterThanOrEqual(8)

    const created = await call('/api/v1/pages', {
      method: 'POST',
      json: {
        title: 'Open day',
        blocks: [
          ...payloads.map((html) => ({ type: 'rich_text', props: { html } })),
          {
            type: 'faq',
            props: { items: payloads.map((answer) => ({ question: 'Q', answer })) },
          },
          { type: 'cta', props: { body: payloads.join(''), button_label: 'Go', button_url: '/' } },
        ],
      },
    })
    expect(created.status).toBe(201)
    const page = await readJson(created)
    const served: string[] = [
      ...page.blocks
        .slice(0, payloads.length)
        .map((b: { props: { html: string } }) => b.props.html),
      ...page.blocks[payloads.length].props.items.map((i: { answer: string }) => i.answer),
      page.blocks[payloads.length + 1].props.body,
    ]
    const rendered = await render(served.join('\n'))
    expect(rendered.live).toEqual([])
    expect(rendered.dialogs).toEqual([])
    expect(rendered.hits).toEqual([])
  })
})

describe('custom_css, rendered into the site’s style element (Chromium)', () => {
  /** Each attack, and the request Chromium makes when it honours it. */
  const attacks = (): [string, string][] => [
    [`@\\69mport url(${origin}/hit/escaped-import.css);`, '/hit/escaped-import.css'],
    [`@import "${origin}/hit/import.css";`, '/hit/import.css'],
    [`body{background:u\\72l(${origin}/hit/escaped-url.png)}`, '/hit/escaped-url.png'],
    [`body{background:url(${origin}/hit/http-url.png)}`, '/hit/http-url.png'],
    [`li{list-style-image:url("${origin}/hit/string-url.png")}`, '/hit/string-url.png'],
  ]

  it('loads what Chromium honours when rendered raw (control), and the API refuses each', async () => {
    for (const [css, path] of attacks()) {
      const raw = await render('<ul><li>item</li></ul>', css, path)
      expect(raw.hits, css).toEqual([path])
      const response = await call('/api/v1/appearance', {
        method: 'PATCH',
        json: { custom_css: css },
      })
      expect(response.status, css).toBe(422)
      expect((await readJson(response)).errors[0]).toMatchObject({
        field: 'custom_css',
        code: 'unsafe',
      })
    }
  })

  it('cannot end the style element and run script', async () => {
    const css = 'a{}</style><script src="/hit/style-breakout.js"></script><style>'
    const raw = await render('', css, '/hit/style-breakout.js')
    expect(raw.dialogs).toEqual(['script loaded'])
    const response = await call('/api/v1/appearance', {
      method: 'PATCH',
      json: { custom_css: css },
    })
    expect(response.status).toBe(422)
  })

  it('renders accepted CSS without loading anything', async () => {
    const css =
      '/* brand */ :root{--brand:#f59e0b} a:hover{color:var(--brand)} @media (width < 600px){body{margin:0}}'
    const response = await call('/api/v1/appearance', {
      method: 'PATCH',
      json: { custom_css: css },
    })
    expect(response.status).toBe(200)
    const stored = (await readJson(response)).custom_css
    const rendered = await render('<a href="/">home</a>', stored)
    expect(rendered.hits).toEqual([])
    expect(rendered.dialogs).toEqual([])
  })
})
