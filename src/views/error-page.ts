import { html } from './html.js'
import { layout } from './layout.js'

export interface ErrorPageModel {
  readonly title: string
  readonly message: string
  readonly requestId?: string
}

/** Shown instead of redirecting when the redirect target cannot be trusted (RFC 6749 §4.1.2.1). */
export function errorPage({ title, message, requestId }: ErrorPageModel): string {
  return layout({
    title,
    body: html`<section class="card" role="alert">
<h1>${title}</h1>
<p>${message}</p>
<p class="muted">You can close this page and return to the application.${requestId ? html` Reference: <code>${requestId}</code>` : ''}</p>
</section>`,
  })
}
