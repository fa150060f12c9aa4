import { html, type SafeHtml } from './html.js'

/** How the school presents itself (its name, and its `appearance` settings when set). */
export interface Brand {
  readonly name: string
  /** An https logo; shown beside the name. */
  readonly logoUrl?: string | undefined
  /** The primary colour, `#RRGGBB`; the header's background. */
  readonly color?: string | undefined
}

export interface LayoutOptions {
  readonly title: string
  readonly body: SafeHtml
  /** The school's name, shown in the header (when no brand is given). */
  readonly school?: string
  /** The school's name, logo and colour, shown in the header. */
  readonly brand?: Brand | undefined
}

/**
 * The page shell: no scripts, one stylesheet from this origin, readable on a phone. The
 * header is the school's (name, logo, colour): the page a person types a password into is
 * recognisably their school's. Portico itself is named only in the footer.
 */
export function layout({ title, body, school, brand }: LayoutOptions): string {
  const name = brand?.name ?? school ?? 'Portico'
  const style = brandStyle(brand)
  const logo = brandLogo(brand)
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title}</title>
<link rel="stylesheet" href="/assets/portico.css">
${style ? html`<style>${style}</style>` : ''}
</head>
<body>
<header class="top${style ? ' branded' : ''}">${logo ? html`<img class="logo" src="${logo}" alt="" width="32" height="32"> ` : ''}<span class="brand">${name}</span></header>
<main>
${body}
</main>
<footer class="bottom">Sign-in and app access by Portico</footer>
</body>
</html>
`.value
}

/** A host name or address with an optional port, and nothing a CSP source list would read. */
const PLAIN_HOST = /^(?:[a-z0-9-]+(?:\.[a-z0-9-]+)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i

/** The logo to show: an https URL only (an http image on the sign-in page is mixed content). */
export function brandLogo(brand: Brand | undefined): string | undefined {
  if (!brand?.logoUrl) return undefined
  try {
    const url = new URL(brand.logoUrl)
    // The origin goes into the Content-Security-Policy header: a host the URL parser accepts
    // with `;`, `,`, `'` or `*` in it would add directives there, so only a plain host name
    // (or address) and port are shown.
    return url.protocol === 'https:' && PLAIN_HOST.test(url.host) ? url.href : undefined
  } catch {
    return undefined
  }
}

/**
 * The one inline style rule of a branded page: the school's colour, and a text colour that
 * stays readable on it. Exact text, so that the page's Content-Security-Policy can allow it
 * by its hash. Undefined without a valid colour.
 */
export function brandStyle(brand: Brand | undefined): string | undefined {
  const color = brand?.color
  if (!color || !/^#[0-9A-Fa-f]{6}$/.test(color)) return undefined
  return `:root{--school:${color.toLowerCase()};--school-fg:${readableOn(color)}}`
}

/** Black or white, whichever contrasts more with `hex` (WCAG relative luminance). */
function readableOn(hex: string): string {
  const channel = (offset: number) => {
    const c = Number.parseInt(hex.slice(offset, offset + 2), 16) / 255
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4
  }
  const luminance = 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5)
  // Contrast with white: 1.05 / (L + 0.05); with black: (L + 0.05) / 0.05.
  return 1.05 / (luminance + 0.05) >= (luminance + 0.05) / 0.05 ? '#ffffff' : '#000000'
}
