import { html, type SafeHtml } from './html.js'

/**
 * How an unverified tool came to be known: it registered itself (RFC 7591), or it is
 * described by a Client ID Metadata Document no operator has trusted.
 */
export type UnverifiedTool = 'self_registered' | 'metadata_document'

/**
 * The one warning shown wherever a person is asked to trust a tool nobody at the school
 * vetted (the sign-in page on the way to it and the consent page): a self-registered tool,
 * or a metadata-document tool whose URL is not trusted (`portico integrations trust`).
 */
export function unverifiedToolWarning(school: string, tool: UnverifiedTool): SafeHtml {
  const origin =
    tool === 'self_registered'
      ? 'This application registered itself'
      : 'This application is described by a public document'
  return html`<p class="warning" role="note"><strong>Unverified tool.</strong> ${origin}; nobody at ${school} has reviewed it. Approve only if you started it yourself.</p>`
}
