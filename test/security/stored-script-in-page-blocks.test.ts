import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { apiClient } from '../http/api-resources/conventions.js'
import { type Json, readJson } from '../support/http.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { issue } from '../support/token-lifecycle.js'

/**
 * Stored cross-site scripting through page blocks (OWASP ASVS V5.2.1): a block's props are
 * declared per block type and each value is checked by what it is (HTML through the
 * allow-list, text as text, links as http(s) URLs or site paths), never by its key's name.
 * An undeclared prop, or a value of the wrong shape (a list or an object where a string
 * belongs), is refused with 422 and nothing is stored; before, a script sat raw in the
 * database under any key not named like HTML, and inside lists and objects.
 */

const SCRIPT = '<script>alert(1)</script>'

let server: TestServer
let call: ReturnType<typeof apiClient>
beforeAll(async () => {
  server = await startTestServer()
  call = apiClient(
    server,
    (await issue(server, { role: 'editor', scope: 'pages:read pages:write' })).accessToken,
  )
})
afterAll(async () => {
  await server?.close()
})

async function pageCount(): Promise<number> {
  const row = await server.deps.database.db
    .selectFrom('pages')
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

async function createPage(blocks: unknown): Promise<Response> {
  return call('/api/v1/pages', { method: 'POST', json: { title: 'Spring sale', blocks } })
}

/** Creating a page with `blocks` is 422 naming `field`, and stores nothing. */
async function expectRefused(blocks: unknown, field: string, code?: string): Promise<Json> {
  const before = await pageCount()
  const response = await createPage(blocks)
  expect(response.status).toBe(422)
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/)
  const body = await readJson(response)
  expect(body.code).toBe('validation_failed')
  expect(body.errors).toContainEqual(
    expect.objectContaining({ field, ...(code ? { code } : {}), message: expect.any(String) }),
  )
  expect(await pageCount()).toBe(before)
  expect(JSON.stringify(body)).not.toContain('<script>')
  return body
}

describe('stored XSS through a block prop whose key is not named like HTML', () => {
  it('refuses an undeclared prop carrying script (html block, key "content")', async () => {
    await expectRefused(
      [{ type: 'html', props: { html: '<p>ok</p>', content: SCRIPT } }],
      'blocks[0].props.content',
      'unknown_field',
    )
  })

  it('refuses an event-handler prop smuggled onto a hero block', async () => {
    await expectRefused(
      [{ type: 'hero', props: { heading: 'Hi', onload: 'alert(1)' } }],
      'blocks[0].props.onload',
      'unknown_field',
    )
  })

  it('refuses a member beside type and props', async () => {
    await expectRefused(
      [{ type: 'rich_text', props: { html: '<p>x</p>' }, html: SCRIPT }],
      'blocks[0].html',
      'unknown_field',
    )
  })
})

describe('stored XSS through a value of the wrong shape', () => {
  it('refuses a list where the HTML string belongs', async () => {
    await expectRefused([{ type: 'rich_text', props: { html: [SCRIPT] } }], 'blocks[0].props.html')
  })

  it('refuses a nested object where the HTML string belongs', async () => {
    await expectRefused(
      [{ type: 'rich_text', props: { html: { inner: SCRIPT } } }],
      'blocks[0].props.html',
    )
  })

  it('refuses a nested object where a heading belongs', async () => {
    await expectRefused(
      [{ type: 'hero', props: { heading: { body: SCRIPT } } }],
      'blocks[0].props.heading',
    )
  })

  it('refuses script hidden in a list entry’s undeclared key (faq item)', async () => {
    await expectRefused(
      [{ type: 'faq', props: { items: [{ question: 'Q', answer: 'A', note: SCRIPT }] } }],
      'blocks[0].props.items[0].note',
      'unknown_field',
    )
  })

  it('refuses props that are a list, a string or a number instead of an object', async () => {
    await expectRefused([{ type: 'html', props: [SCRIPT] }], 'blocks[0].props', 'type')
    await expectRefused([{ type: 'html', props: SCRIPT }], 'blocks[0].props', 'type')
    await expectRefused([{ type: 'html', props: 1 }], 'blocks[0].props', 'type')
  })

  it('refuses a block that is not an object, and an unknown block type', async () => {
    await expectRefused([SCRIPT], 'blocks[0]', 'type')
    await expectRefused([{ type: 'marquee', props: { html: SCRIPT } }], 'blocks[0].type', 'enum')
  })

  it('refuses ids of the wrong resource in a reference list', async () => {
    await expectRefused(
      [{ type: 'course_grid', props: { course_ids: ['crs_ok', 'javascript:alert(1)'] } }],
      'blocks[0].props.course_ids[1]',
      'format',
    )
  })
})

describe('script URLs in link and image props', () => {
  for (const [type, props, field] of [
    ['hero', { button_label: 'Go', button_url: 'javascript:alert(1)' }, 'button_url'],
    ['cta', { button_label: 'Go', button_url: '//evil.example/phish' }, 'button_url'],
    ['image', { image_url: 'javascript:alert(1)' }, 'image_url'],
    ['image', { image_url: 'https://cdn.example/a.png', link_url: 'data:text/html,x' }, 'link_url'],
    ['video', { video_url: 'vbscript:msgbox(1)' }, 'video_url'],
  ] as const) {
    it(`refuses ${field} ${JSON.stringify(props[field as keyof typeof props])} on a ${type} block`, async () => {
      await expectRefused([{ type, props }], `blocks[0].props.${field}`, 'format')
    })
  }
})

describe('HTML props are sanitised by what they are, on create and on update', () => {
  it('keeps allowed markup and strips script from every HTML prop, served as stored', async () => {
    const created = await createPage([
      { type: 'rich_text', props: { html: `<p>Hello</p>${SCRIPT}<img src=x onerror=alert(1)>` } },
      {
        type: 'faq',
        props: { items: [{ question: 'Refunds?', answer: '<b>Yes</b><svg onload=alert(1)>' }] },
      },
      {
        type: 'cta',
        props: {
          heading: 'Join',
          body: '<a href="javascript:alert(1)">x</a>',
          button_label: 'Join now',
          button_url: '/plans',
        },
      },
    ])
    expect(created.status).toBe(201)
    const page = await readJson(created)
    expect(page.blocks[0].props.html).toBe('<p>Hello</p><img src>')
    expect(page.blocks[1].props.items[0].answer).toBe('<b>Yes</b>')
    expect(page.blocks[2].props.body).toBe('<a href>x</a>')
    expect(page.blocks[2].props.button_url).toBe('/plans')
    const stored = await server.deps.database.db
      .selectFrom('pages')
      .select('blocks')
      .where('id', '=', page.id)
      .executeTakeFirstOrThrow()
    expect(String(stored.blocks)).not.toMatch(/script|onerror|onload|javascript:/)

    const patched = await call(`/api/v1/pages/${page.id}`, {
      method: 'PATCH',
      json: { blocks: [{ type: 'html', props: { html: `<i>x</i>${SCRIPT}` } }] },
    })
    expect(patched.status).toBe(200)
    expect((await readJson(patched)).blocks).toEqual([
      { type: 'html', props: { html: '<i>x</i>' } },
    ])

    const refused = await call(`/api/v1/pages/${page.id}`, {
      method: 'PATCH',
      json: { blocks: [{ type: 'html', props: { html: [SCRIPT] } }] },
    })
    expect(refused.status).toBe(422)
    const again = await readJson(await call(`/api/v1/pages/${page.id}`))
    expect(again.blocks).toEqual([{ type: 'html', props: { html: '<i>x</i>' } }])
  })

  it('accepts every block type with its declared props (the documented shapes)', async () => {
    const response = await createPage([
      {
        type: 'hero',
        props: {
          heading: 'Shoot better',
          button_label: 'Start',
          button_url: '/courses',
          alignment: 'center',
        },
      },
      { type: 'rich_text', props: { html: '<h2>About</h2>' } },
      { type: 'image', props: { image_url: 'https://cdn.example/a.png', alt: 'A lens' } },
      { type: 'video', props: { video_url: 'https://video.example/v/1', title: 'Trailer' } },
      { type: 'course_grid', props: { course_ids: ['crs_a', 'crs_a'], limit: 6 } },
      { type: 'course_card', props: { course_id: 'crs_a' } },
      { type: 'pricing_table', props: { plan_ids: ['mpl_a'] } },
      { type: 'lecturer_grid', props: { lecturer_ids: ['lec_a'] } },
      { type: 'testimonials', props: { items: [{ quote: '<b>Great</b>', author: 'Ana' }] } },
      { type: 'faq', props: { items: [{ question: 'Q?', answer: '<p>A</p>' }] } },
      { type: 'cta', props: { button_label: 'Go', button_url: 'https://school.example/plans' } },
      { type: 'form', props: { form_id: 'frm_a', heading: null } },
      { type: 'event_list', props: { when: 'upcoming', limit: 3 } },
      { type: 'html', props: { html: '<hr>' } },
      { type: 'hero' },
    ])
    expect(response.status).toBe(201)
    const page = await readJson(response)
    expect(page.blocks).toHaveLength(15)
    expect(page.blocks[4].props.course_ids).toEqual(['crs_a'])
    // A testimonial quote is text, not HTML: stored as written, for the site to escape.
    expect(page.blocks[8].props.items[0].quote).toBe('<b>Great</b>')
    expect(page.blocks[14]).toEqual({ type: 'hero', props: {} })
  })

  it('refuses a block type without its required props', async () => {
    await expectRefused([{ type: 'rich_text' }], 'blocks[0].props.html', 'required')
    await expectRefused(
      [{ type: 'course_card', props: {} }],
      'blocks[0].props.course_id',
      'required',
    )
  })
})

describe('the OpenAPI document declares every block type’s props', () => {
  it('lists one schema per block type, closed to other props', async () => {
    const document = await readJson(await server.fetch('/openapi.json'))
    const text = JSON.stringify(document)
    for (const type of ['hero', 'rich_text', 'faq', 'html'])
      expect(text).toContain(`"type":{"const":"${type}"}`)
    expect(text).not.toContain('"props":{"type":"object"}')
  })
})
