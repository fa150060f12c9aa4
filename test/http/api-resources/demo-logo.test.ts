import { describe, expect, it } from 'vitest'
import { useDemoServer } from '../../support/demo.js'
import { readJson } from '../../support/http.js'

const server = useDemoServer()

/** Width and height from a PNG's IHDR chunk. */
function pngSize(bytes: Buffer): { width: number; height: number } {
  expect(bytes.subarray(0, 8).equals(Buffer.from('\x89PNG\r\n\x1a\n', 'latin1'))).toBe(true)
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) }
}

describe('the demo school’s logo is Portico’s own file', () => {
  it('is named by the appearance at the issuer and served there: 200, an image, inline', async () => {
    const appearance = await readJson(await server().fetch('/api/v1/appearance'))
    const logoUrl: string = appearance.logo_url
    expect(logoUrl.startsWith(`${server().issuer}/files/`)).toBe(true)
    expect(appearance.favicon_url).toBe(logoUrl)

    // Fetched as a browser would, by its full URL and without a token.
    const response = await fetch(logoUrl)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/^image\/png\b/)
    expect(response.headers.get('content-disposition')).toMatch(/^inline/)
    const bytes = Buffer.from(await response.arrayBuffer())
    expect(pngSize(bytes)).toEqual({ width: 64, height: 64 })
    expect(bytes.length).toBeLessThan(4096)
  })

  it('is shown by Portico’s own pages as an image of this origin', async () => {
    const logoUrl: string = (await readJson(await server().fetch('/api/v1/appearance'))).logo_url
    const response = await server().fetch('/login')
    expect(response.status).toBe(200)
    const page = await response.text()
    const header = /<header[^>]*>(.*)<\/header>/s.exec(page)?.[1] ?? ''
    expect(header).toContain(`<img class="logo" src="${new URL(logoUrl).pathname}"`)
    expect(header).toContain('Brightframe Photography School')
    expect(response.headers.get('content-security-policy')).toContain("img-src 'self' data:;")
  })
})
