import { html } from './html.js'
import { type Brand, layout } from './layout.js'

export interface ErrorPageModel {
  readonly title: string
  readonly message: string
  readonly requestId?: string
  /** The school's name, logo and colour for the header, when known. */
  readonly brand?: Brand | undefined
}

/** Shown instead of redirecting when the redirect target cannot be trusted (RFC 6749 §4.1.2.1). */
export function errorPage({ title, message, requestId, brand }: ErrorPageModel): string {
  return layout({
    title: brand ? `${title} · ${brand.name}` : title,
    brand,
    body: html`<section class="card" role="alert">
<h1>${title}</h1>
<p>${message}</p>
<p class="muted">You can close this page and return to the application.${requestId ? html` Reference: <code>${requestId}</code>` : ''}</p>
</section>`,
  })
}
