import { describe, expect, it } from 'vitest'
import { loadDemo } from '../../src/api/demo/demo.js'
import { recheckStoredContent } from '../../src/api/stored-content-recheck.js'
import { startServer } from '../../src/main.js'
import { createLogger } from '../../src/platform/logger.js'
import { readJson } from '../support/http.js'
import { startTestServer } from '../support/server.js'

/**
 * Stored script that predates the rules (issue 16): a page block with a script under a prop
 * the old checker never sanitised (it only looked at keys named like HTML), and custom CSS
 * with an escape-spelled @import, both stored before the upgrade. Every start checks stored
 * content again with the same functions that check a write, so neither is served after it.
 */

const SCRIPT = '<script>alert(1)</script>'

describe('content stored before the rules tightened is checked again at start', () => {
  it('drops a script-bearing block and clears refused CSS; a restart serves neither', async () => {
    const first = await startTestServer()
    const db = first.deps.database.db
    const now = Date.now()
    await db
      .insertInto('pages')
      .values({
        id: 'pag_legacy',
        title: 'Legacy',
        slug: 'legacy',
        type: 'standard',
        status: 'published',
        blocks: JSON.stringify([
          { type: 'faq', props: { items: [{ question: 'Q', answer: SCRIPT }] } },
          { type: 'rich_text', props: { html: `<p>kept</p>${SCRIPT}` } },
          { type: 'rich_text', props: { html: '<p>x</p>', onload: SCRIPT } },
        ]),
        seo: null,
        show_in_navigation: 0,
        published_at: now,
        created_at: now,
        updated_at: now,
      })
      .execute()
    const appearance = await db.selectFrom('appearance').select('id').executeTakeFirst()
    if (appearance)
      await db
        .updateTable('appearance')
        .set({ custom_css: '@\\69mport url(https://evil.example/x.css);' })
        .execute()

    // A second instance starting over the same database, as after an upgrade.
    const again = await startServer(
      { ...first.deps.config, port: 0 },
      { logger: createLogger('silent') },
    )
    try {
      const response = await fetch(`${again.url}/api/v1/pages/legacy`)
      expect(response.status).toBe(200)
      const text = JSON.stringify(await readJson(response))
      expect(text).not.toMatch(/<script/i)
      expect(text).not.toContain('onload')
      expect(text).toContain('kept')
      const stored = await again.deps.database.db
        .selectFrom('appearance')
        .select('custom_css')
        .execute()
      for (const row of stored) expect(row.custom_css).toBeNull()
    } finally {
      await again.close()
      await first.close()
    }
  })

  it('changes nothing in the demo school (its content passes today’s checks)', async () => {
    const server = await startTestServer()
    try {
      expect(await loadDemo(server.deps)).toBe(true)
      const result = await recheckStoredContent(server.deps.database.db, Date.now())
      expect(result).toEqual({ pages: [], droppedBlocks: 0, customCssCleared: false })
    } finally {
      await server.close()
    }
  })
})
