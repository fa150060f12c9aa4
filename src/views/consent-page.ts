import type { ScopeLine } from '../oauth/authorize/scope-labels.js'
import { shownClientName } from './client-name.js'
import { html, type SafeHtml } from './html.js'
import { type Brand, layout } from './layout.js'
import { unverifiedToolWarning } from './unverified-tool-warning.js'

export interface ConsentPageModel {
  readonly school: string
  /** The school's logo and colour for the header; the name alone without it. */
  readonly brand?: Brand
  readonly clientName: string | undefined
  readonly clientId: string
  /** True for tools that registered themselves: nobody at the school has vetted them. */
  readonly selfRegistered: boolean
  /**
   * For a client identified by a Client ID Metadata Document: the host that publishes it
   * (e.g. `vscode.dev`), and whether an operator has reviewed that document.
   */
  readonly document: { readonly host: string; readonly reviewed: boolean } | undefined
  /** Where the answer goes, e.g. `127.0.0.1:53127` or `app.example.com`. */
  readonly destination: string
  readonly identity: readonly ScopeLine[]
  readonly read: readonly ScopeLine[]
  readonly write: readonly ScopeLine[]
  /** Requested, but beyond what this person's role can grant: shown, never granted. */
  readonly unavailable: readonly ScopeLine[]
  readonly userName: string
  readonly userEmail: string
  readonly request: string
  readonly csrf: string
  readonly logoutCsrf: string
}

function group(title: string, lines: readonly ScopeLine[], className: string): SafeHtml | '' {
  if (lines.length === 0) return ''
  return html`<h2 class="${className}">${title}</h2><ul class="scopes ${className}">${lines.map(
    (l) => html`<li><span>${l.label}</span> <code>${l.scope}</code></li>`,
  )}</ul>`
}

export function consentPage(m: ConsentPageModel): string {
  const grantable = m.identity.length + m.read.length + m.write.length > 0
  return layout({
    title: `Authorize ${shownClientName(m.clientName) ?? 'an application'} · ${m.school}`,
    school: m.school,
    brand: m.brand,
    body: html`<section class="card">
<h1><span class="client-name">${shownClientName(m.clientName) ?? 'An unnamed application'}</span> wants access to your account</h1>
${m.document ? html`<p class="document-host">Described by <strong>${m.document.host}</strong>; the name above is the one it gives itself.</p>` : ''}
${
  m.document
    ? m.document.reviewed
      ? html`<p class="muted">An integration reviewed by ${m.school}.</p>`
      : unverifiedToolWarning(m.school, 'metadata_document')
    : m.selfRegistered
      ? unverifiedToolWarning(m.school, 'self_registered')
      : html`<p class="muted">An integration registered by ${m.school}.</p>`
}
<p>If you approve, the answer is sent to <code class="destination">${m.destination}</code>.</p>
${group('Who you are', m.identity, 'identity')}
${group('Read access', m.read, 'read')}
${group('Write access: it can change your school', m.write, 'write')}
${group('Not available to your role (will not be granted)', m.unavailable, 'unavailable')}
${grantable ? '' : html`<p class="error">None of the requested access can be granted to your account.</p>`}
<form method="post" action="/oauth/authorize/decision" class="decision">
<input type="hidden" name="request" value="${m.request}">
<input type="hidden" name="csrf" value="${m.csrf}">
${grantable ? html`<button type="submit" name="decision" value="approve" class="primary">Approve</button>` : ''}
<button type="submit" name="decision" value="deny">Deny</button>
</form>
<p class="muted">Signed in as ${m.userName} (${m.userEmail}). Client ID <code>${m.clientId}</code>.</p>
<form method="post" action="/logout" class="inline"><input type="hidden" name="csrf" value="${m.logoutCsrf}"><button type="submit" class="link">Not you? Sign out</button></form>
</section>`,
  })
}
