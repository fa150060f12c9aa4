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
