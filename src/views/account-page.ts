import { shownClientName } from './client-name.js'
import { html, type SafeHtml } from './html.js'
import { type Brand, layout } from './layout.js'

/** One tool a person authorized, possibly through several sign-ins. */
export interface ConnectionRow {
  readonly clientId: string
  readonly clientName: string
  readonly selfRegistered: boolean
  /** The host publishing the tool's Client ID Metadata Document, e.g. `vscode.dev`. */
  readonly documentHost: string | undefined
  /** One installation of a metadata-document tool: its grant, revoked on its own. */
  readonly grantId: string | undefined
  /** Where that installation's authorization returned, e.g. `127.0.0.1:49152`. */
  readonly returnsTo: string | undefined
  readonly userId: string
  readonly person: string
  readonly scopes: readonly string[]
  readonly grantedAt: string
  readonly lastUsed: string
  /** Whether the viewer may revoke it; if not, why not (shown instead of the button). */
  readonly refusal?: string
}

export interface AccountPageModel {
  readonly school: string
  /** The school's logo and colour for the header; the name alone without it. */
  readonly brand?: Brand
  readonly userName: string
  readonly userEmail: string
  readonly role: string
  readonly mine: readonly ConnectionRow[]
  /** Every connection at the school, for owners and admins; undefined for everyone else. */
  readonly everyone: readonly ConnectionRow[] | undefined
  readonly csrf: string
  readonly logoutCsrf: string
  readonly notice?: string
}

function table(rows: readonly ConnectionRow[], csrf: string, showPerson: boolean): SafeHtml {
  if (rows.length === 0) return html`<p class="muted">No connected apps.</p>`
  return html`<table>
<thead><tr><th scope="col">App</th>${showPerson ? html`<th scope="col">Person</th>` : ''}<th scope="col">Access</th><th scope="col">Granted</th><th scope="col">Last used</th><th scope="col"><span class="visually-hidden">Action</span></th></tr></thead>
<tbody>${rows.map(
    (r) => html`<tr>
<td><strong class="client-name">${shownClientName(r.clientName) ?? 'Unnamed application'}</strong><br><span class="muted">${
      r.documentHost !== undefined
        ? html`${r.documentHost}${r.returnsTo ? html` · returns to <code class="returns-to">${r.returnsTo}</code>` : ''}`
        : r.selfRegistered
          ? 'self-registered tool'
          : 'integration'
    }</span></td>
${showPerson ? html`<td>${r.person}</td>` : ''}
<td>${r.scopes.map((s) => html`<code>${s}</code> `)}</td>
<td>${r.grantedAt}</td>
<td>${r.lastUsed}</td>
<td>${
      r.refusal
        ? html`<span class="muted">${r.refusal}</span>`
        : html`<form method="post" action="/account/connections/revoke">
<input type="hidden" name="csrf" value="${csrf}"><input type="hidden" name="client_id" value="${r.clientId}"><input type="hidden" name="user_id" value="${r.userId}">${r.grantId ? html`<input type="hidden" name="grant_id" value="${r.grantId}">` : ''}
<button type="submit" aria-label="Revoke access of ${shownClientName(r.clientName) ?? 'Unnamed application'}${r.returnsTo ? ` returning to ${r.returnsTo}` : ''}${showPerson ? ` for ${r.person}` : ''}">Revoke</button></form>`
    }</td>
</tr>`,
  )}</tbody></table>`
}

/** The signed-in person's page: who they are, and every tool they authorized. */
export function accountPage(m: AccountPageModel): string {
  return layout({
    title: `Connected apps · ${m.school}`,
    school: m.school,
    brand: m.brand,
    body: html`<section class="card wide">
<h1>Connected apps</h1>
<p>${m.userName} (${m.userEmail}), ${m.role.replaceAll('_', ' ')} at ${m.school}.</p>
${m.notice ? html`<p class="notice" role="status">${m.notice}</p>` : ''}
<h2>Apps you authorized</h2>
${table(m.mine, m.csrf, false)}
${m.everyone ? html`<h2>All connected apps at ${m.school}</h2>${table(m.everyone, m.csrf, true)}` : ''}
<form method="post" action="/logout"><input type="hidden" name="csrf" value="${m.logoutCsrf}"><button type="submit">Sign out</button></form>
</section>`,
  })
}
