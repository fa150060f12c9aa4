import { html, type SafeHtml } from './html.js'

/**
 * The one warning shown wherever a person is asked to trust a self-registered tool (the
 * sign-in page on the way to it and the consent page): nobody at the school vetted it.
 */
export function unverifiedToolWarning(school: string): SafeHtml {
  return html`<p class="warning" role="note"><strong>Unverified tool.</strong> This application registered itself; nobody at ${school} has reviewed it. Approve only if you started it yourself.</p>`
}
