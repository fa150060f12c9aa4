import { html, type SafeHtml } from './html.js'

/** How the school presents itself (its name, and its `appearance` settings when set). */
export interface Brand {
  readonly name: string
  /** An https logo elsewhere; shown beside the name when it loads, never as a broken image. */
  readonly logoUrl?: string | undefined
  /**
   * The logo as a path on this origin (`/files/{id}/{name}`): a public image of Portico's
   * own storage, known to exist. Shown as an image beside the name.
   */
  readonly ownLogo?: string | undefined
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
 *
 * The name is always there as text, and a logo that cannot be loaded never shows as a broken
 * image: an `<img>` only for a file of Portico's own storage that the store found to exist
 * (`ownLogo`); a logo elsewhere, which may be gone or unreachable at any time, is the
 * background of an empty element (set in the page's one hashed style rule), and a background
 * image that fails to load is simply not drawn. No script is needed, and none would run: the
 * pages' Content-Security-Policy allows no scripts, so an `onerror` handler could not hide it.
 */
export function layout({ title, body, school, brand }: LayoutOptions): string {
  const name = brand?.name ?? school ?? 'Portico'
  const style = brandStyle(brand)
  const own = ownLogo(brand)
  const logo = own
    ? html`<img class="logo" src="${own}" alt="" width="32" height="32"> `
    : brandLogo(brand)
      ? html`<span class="logo" aria-hidden="true"></span> `
      : ''
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
<header class="top${brandColor(brand) ? ' branded' : ''}">${logo}<span class="brand">${name}</span></header>
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

/** The path of a logo in Portico's own storage: `/files/{id}/{name}`, nothing else. */
export function ownLogo(brand: Brand | undefined): string | undefined {
  const path = brand?.ownLogo
  return path && /^\/files\/[A-Za-z0-9_]+\/[A-Za-z0-9._~%!'()*-]+$/.test(path) ? path : undefined
}

/** The school's colour, when it is `#RRGGBB`. */
function brandColor(brand: Brand | undefined): string | undefined {
  const color = brand?.color
  return color && /^#[0-9A-Fa-f]{6}$/.test(color) ? color : undefined
}

/**
 * The inline style of a branded page, one rule each: the school's colour and a text colour
 * that stays readable on it; a logo elsewhere, as the background of the header's logo
 * element. Exact text, so that the page's Content-Security-Policy can allow it by its hash.
 * Undefined without either.
 */
export function brandStyle(brand: Brand | undefined): string | undefined {
  const rules: string[] = []
  const color = brandColor(brand)
  if (color) rules.push(`:root{--school:${color.toLowerCase()};--school-fg:${readableOn(color)}}`)
  const logo = ownLogo(brand) ? undefined : brandLogo(brand)
  if (logo) rules.push(`.logo{background-image:url(${cssEscape(logo)})}`)
  return rules.length > 0 ? rules.join('') : undefined
}

/**
 * A URL as the inside of an unquoted CSS `url()`, and text the `html` tag leaves as it is:
 * everything but letters, digits and the URL punctuation that means nothing there or in HTML
 * is a CSS escape (`&` → `\26 `, `(` → `\28 `), so neither the `url()` nor the `<style>`
 * element can be ended from the URL.
 */
function cssEscape(url: string): string {
  return url.replace(
    /[^A-Za-z0-9\-._~:/?#[\]@!$*+,;=%]/g,
    (c) => `\\${(c.codePointAt(0) ?? 0).toString(16)} `,
  )
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
