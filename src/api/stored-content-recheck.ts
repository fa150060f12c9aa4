import type { Db } from '../storage/schema.js'
import type { FieldError } from './conventions.js'
import { findCssProblem } from './school/custom-css.js'
import { checkBlocks } from './school/page-blocks.js'

/** What a start found stored under older, looser rules, and changed. */
export interface StoredContentRecheck {
  /** Pages whose blocks were sanitised again, or lost a block that fails today's rules. */
  readonly pages: readonly string[]
  /** Blocks dropped, in all. */
  readonly droppedBlocks: number
  /** Whether the school's custom CSS was cleared because today's checks refuse it. */
  readonly customCssCleared: boolean
}

/**
 * Stored content is never stored script, including what was stored before the rules
 * tightened (issue 16): at every start, page blocks are checked again by their block type's
 * declared props (a block that fails is dropped, the rest is kept as the checker returns
 * it, sanitised) and the custom CSS by the CSS tokenizer (refused CSS is cleared). It only
 * writes what changed, so a start over clean data writes nothing; the checks are the same
 * functions that check a write, so the two cannot differ.
 */
export async function recheckStoredContent(db: Db, now: number): Promise<StoredContentRecheck> {
  const pages: string[] = []
  let droppedBlocks = 0
  for (const page of await db.selectFrom('pages').select(['id', 'blocks']).execute()) {
    const kept = recheckBlocks(page.blocks)
    if (kept.json === page.blocks) continue
    droppedBlocks += kept.dropped
    pages.push(page.id)
    await db
      .updateTable('pages')
      .set({ blocks: kept.json, updated_at: now })
      .where('id', '=', page.id)
      .execute()
  }
  let customCssCleared = false
  for (const row of await db
    .selectFrom('appearance')
    .select(['id', 'custom_css'])
    .where('custom_css', 'is not', null)
    .execute()) {
    if (row.custom_css === null || findCssProblem(row.custom_css) === undefined) continue
    customCssCleared = true
    await db
      .updateTable('appearance')
      .set({ custom_css: null, updated_at: now })
      .where('id', '=', row.id)
      .execute()
  }
  return { pages, droppedBlocks, customCssCleared }
}

/** The blocks that pass today's checks, as the checker returns them, and how many failed. */
function recheckBlocks(stored: string): { json: string; dropped: number } {
  let blocks: unknown
  try {
    blocks = JSON.parse(stored)
  } catch {
    return { json: '[]', dropped: 1 }
  }
  if (!Array.isArray(blocks)) return { json: '[]', dropped: 1 }
  const kept: unknown[] = []
  for (const block of blocks) {
    const errors: FieldError[] = []
    const [checked] = checkBlocks([block], 'blocks', errors) as unknown[]
    if (errors.length === 0) kept.push(checked)
  }
  const json = JSON.stringify(kept)
  // Unchanged blocks keep their stored spelling, so a clean page is never rewritten.
  return {
    json: json === JSON.stringify(blocks) ? stored : json,
    dropped: blocks.length - kept.length,
  }
}
