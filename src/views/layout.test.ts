import { describe, expect, it } from 'vitest'
import { html } from './html.js'
import { brandLogo, brandStyle, layout } from './layout.js'

const body = html`<p>body</p>`

describe('the page header is the school’s, Portico only in the footer', () => {
  it('shows the school’s name in the header, escaped, and Portico in the footer only', () => {
    const page = layout({ title: 't', body, brand: { name: 'Ada <School> & "Co"' } })
    const header = /<header[^>]*>(.*)<\/header>/s.exec(page)?.[1] ?? ''
    expect(header).toContain('Ada &lt;School&gt; &amp; &quot;Co&quot;')
    expect(header).not.toContain('Portico')
    expect(/<footer[^>]*>(.*)<\/footer>/s.exec(page)?.[1]).toContain('Portico')
  })

  it('shows an https logo only (an http image on the sign-in page is mixed content)', () => {
    expect(brandLogo({ name: 's', logoUrl: 'https://cdn.example/l.png' })).toBe(
      'https://cdn.example/l.png',
    )
    expect(brandLogo({ name: 's', logoUrl: 'http://cdn.example/l.png' })).toBeUndefined()
    expect(brandLogo({ name: 's', logoUrl: 'javascript:alert(1)' })).toBeUndefined()
    expect(brandLogo({ name: 's', logoUrl: 'not a url' })).toBeUndefined()
  })

  it('shows no logo whose host would add directives to the Content-Security-Policy', () => {
    for (const logoUrl of [
      'https://x.example;sandbox/l.png',
      'https://x.example,default-src/l.png',
      "https://x.example'unsafe-inline'/l.png",
      'https://*/l.png',
      'https://*.example/l.png',
    ]) {
      expect(brandLogo({ name: 's', logoUrl })).toBeUndefined()
    }
    expect(brandLogo({ name: 's', logoUrl: 'https://cdn.example:8443/l.png' })).toBe(
      'https://cdn.example:8443/l.png',
    )
    const page = layout({ title: 't', body, brand: { name: 's', logoUrl: 'http://x.example/l' } })
    expect(page).not.toContain('<img')
  })

  it('never shows a logo elsewhere as an image: it is the background of an empty element', () => {
    const brand = { name: 'Ada', logoUrl: 'https://cdn.example/l.png?v=1&w=64' }
    const page = layout({ title: 't', body, brand })
    expect(page).not.toContain('<img')
    expect(page).toContain(
      '<span class="logo" aria-hidden="true"></span> <span class="brand">Ada</span>',
    )
    // In the page's one style element, exactly as hashed; `&` escaped for CSS, not for HTML.
    const style = brandStyle(brand)
    expect(style).toBe('.logo{background-image:url(https://cdn.example/l.png?v=1\\26 w=64)}')
    expect(page).toContain(`<style>${style}</style>`)
    // Nothing in the URL can end the url() or the style element.
    const hostile = brandStyle({ name: 's', logoUrl: 'https://cdn.example/a\'b"c</style>)( x' })
    expect(hostile).toBe(
      '.logo{background-image:url(https://cdn.example/a\\27 b%22c%3C/style%3E\\29 \\28 %20x)}',
    )
    const inside = /url\((.*)\)\}$/.exec(hostile ?? '')?.[1] ?? ''
    expect(inside.replace(/\\[0-9a-f]+ /g, '')).toMatch(/^[^"'<>()\s\\]+$/)
  })

  it('shows a logo of Portico’s own storage as an image of this origin, and no other path', () => {
    const ownLogo = '/files/fil_abc/logo.png'
    const page = layout({ title: 't', body, brand: { name: 'Ada', ownLogo } })
    expect(page).toContain(
      '<img class="logo" src="/files/fil_abc/logo.png" alt="" width="32" height="32"> <span class="brand">Ada</span>',
    )
    expect(brandStyle({ name: 'Ada', ownLogo })).toBeUndefined()
    for (const path of ['//evil.example/files/x/y.png', '/files/x/../../y', '/elsewhere/l.png'])
      expect(layout({ title: 't', body, brand: { name: 'Ada', ownLogo: path } })).not.toContain(
        '<img',
      )
  })

  it('turns only a #RRGGBB colour into the one inline rule, with readable text on it', () => {
    expect(brandStyle({ name: 's', color: '#7A1F3D' })).toBe(
      ':root{--school:#7a1f3d;--school-fg:#ffffff}',
    )
    expect(brandStyle({ name: 's', color: '#FFE066' })).toBe(
      ':root{--school:#ffe066;--school-fg:#000000}',
    )
    for (const color of ['red', '#fff', '#1234567', '#12345g', '#123456;}body{x:y'])
      expect(brandStyle({ name: 's', color }), color).toBeUndefined()
    expect(layout({ title: 't', body, brand: { name: 's', color: 'red' } })).not.toContain(
      '<style>',
    )
  })
})
