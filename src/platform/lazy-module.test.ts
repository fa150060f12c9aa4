import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { lazyModule } from './lazy-module.js'

/** Every source file of the server (tests aside), relative to src/. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(file)
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [file] : []
  })
}

/** What a module imports as values (`import type` and `import { type … }` alone aside). */
function valueImports(text: string): string[] {
  const found: string[] = []
  for (const match of text.matchAll(/^import\s+(?!type\s)([^'"]*?)\s*from\s*'([^']+)'/gm)) {
    const [, clause = '', specifier = ''] = match
    const names = clause.match(/^\{([^}]*)\}$/s)?.[1]
    if (names?.split(',').every((name) => /^\s*(type\s|$)/.test(name))) continue
    found.push(specifier)
  }
  return found
}

describe('packages a SQLite deployment never uses', () => {
  it('are loaded on first use, never imported at startup', () => {
    // pg (PostgreSQL), ioredis (shared rate limits), undici (outbound fetches of metadata
    // documents) and css-tree's main module (its whole CSS grammar): together about 15 MB of
    // heap that every major garbage collection would mark again. A started server's loaded
    // packages are checked too (test/cli/serve-packages.test.ts); css-tree's main module is
    // an ES module, which only this scan sees.
    const large = new Set(['pg', 'ioredis', 'undici', 'css-tree'])
    const importing = sourceFiles('src').flatMap((file) =>
      valueImports(readFileSync(file, 'utf8'))
        .filter((specifier) => large.has(specifier))
        .map((specifier) => `${file}: ${specifier}`),
    )
    expect(importing).toEqual([])
  })

  it('the scan sees a value import and lets a type import pass', () => {
    expect(valueImports("import pg from 'pg'\nimport type X from 'undici'\n")).toEqual(['pg'])
    expect(valueImports("import { type A, type B } from 'ioredis'\n")).toEqual([])
    expect(valueImports("import { type A, B } from 'ioredis'\n")).toEqual(['ioredis'])
    expect(valueImports("import { tokenize } from 'css-tree/tokenizer'\n")).toEqual([
      'css-tree/tokenizer',
    ])
  })

  it('a lazy module is loaded once, when first asked for', () => {
    const load = lazyModule<typeof import('node:path')>('node:path')
    expect(load()).toBe(load())
    expect(load().join('a', 'b')).toBe(path.join('a', 'b'))
  })
})
