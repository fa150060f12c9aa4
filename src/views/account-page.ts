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
  /** Writes its grants were refused for scope or role (counted, not listed). */
  readonly refusedWrites: number
  /** Its calls held for a yes that were refused on the approval page, or left to expire. */
  readonly approvals?: { readonly declined: number; readonly expired: number }
}

/** One change an app made, as a sentence. */
export interface ActivityEntry {
  readonly appName: string
  /** Whose token it was, when the viewer sees other people's apps too. */
  readonly person: string | undefined
  /** What it did: "changed the price of “Portrait Lighting” from $49.00 to $39.00". */
  readonly sentence: string
  /** RFC 3339, and the same as "10 minutes ago". */
  readonly at: string
  readonly ago: string
  /** Who said yes to it, when it waited for one (issue 35): their name. */
  readonly approvedBy?: string
}

/** A page of the activity record, newest first. */
export interface ActivityModel {
  /** Every app at the school (owners and admins), or the viewer's own. */
  readonly everyone: boolean
  /** The one app the list is narrowed to, when it is. */
  readonly app: { readonly clientId: string; readonly name: string } | undefined
  readonly entries: readonly ActivityEntry[]
  /** The next (older) page, and the first one, when not on it. */
  readonly olderHref: string | undefined
  readonly newestHref: string | undefined
}

/** One of the person's own requests waiting for a yes (issue 35). */
export interface OwnWaitingRow {
  readonly id: string
  readonly appName: string | undefined
  readonly description: string
  readonly expiresAt: string
  /** Whether the person answers it (else an owner or admin does). */
  readonly yours: boolean
}

export interface AccountPageModel {
  /** The person's own requests waiting for a yes. */
  readonly waiting?: readonly OwnWaitingRow[]
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
  readonly activity: ActivityModel
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
<td><a class="activity-link" href="/account?app=${encodeURIComponent(r.clientId)}#activity">Activity</a>${
      r.refusedWrites > 0
        ? html` <span class="muted refused">${r.refusedWrites} write${r.refusedWrites === 1 ? '' : 's'} refused</span>`
        : ''
    }${
      r.approvals && r.approvals.declined + r.approvals.expired > 0
        ? html` <span class="muted approvals-outcomes">${r.approvals.declined} declined, ${r.approvals.expired} expired waiting for a yes</span>`
        : ''
    }<br>${
      r.refusal
        ? html`<span class="muted">${r.refusal}</span>`
        : html`<form method="post" action="/account/connections/revoke">
<input type="hidden" name="csrf" value="${csrf}"><input type="hidden" name="client_id" value="${r.clientId}"><input type="hidden" name="user_id" value="${r.userId}">${r.grantId ? html`<input type="hidden" name="grant_id" value="${r.grantId}">` : ''}
<button type="submit" aria-label="Revoke access of ${shownClientName(r.clientName) ?? 'Unnamed application'}${r.returnsTo ? ` returning to ${r.returnsTo}` : ''}${showPerson ? ` for ${r.person}` : ''}">Revoke</button></form>`
    }</td>
</tr>`,
  )}</tbody></table>`
}

/** What the apps changed, newest first, one sentence each; paged by links (no script). */
function activitySection(a: ActivityModel, school: string): SafeHtml {
  const whose = a.app
    ? html`of ${shownClientName(a.app.name) ?? 'Unnamed application'}`
    : a.everyone
      ? html`of every app at ${school}`
      : html`of your apps`
  return html`<section id="activity" class="activity">
<h2>Recent activity ${whose}</h2>
${a.app ? html`<p><a href="/account#activity">Every app’s activity</a></p>` : ''}
${
  a.entries.length === 0
    ? html`<p class="muted">No changes recorded.</p>`
    : html`<ol class="activity-list">${a.entries.map(
        (e) =>
          html`<li><strong class="client-name">${shownClientName(e.appName) ?? 'Unnamed application'}</strong>${
            e.person ? html` <span class="muted">(${e.person})</span>` : ''
          } ${e.sentence}, <time datetime="${e.at}" title="${e.at}">${e.ago}</time>${
            e.approvedBy
              ? html` <span class="muted approved-by">(approved by ${e.approvedBy})</span>`
              : ''
          }</li>`,
      )}</ol>`
}
<nav class="pager" aria-label="Activity pages">${a.newestHref ? html`<a href="${a.newestHref}">Newest</a> ` : ''}${
    a.olderHref ? html`<a href="${a.olderHref}" rel="next">Older changes</a>` : ''
  }</nav>
</section>`
}

/** The person's own requests waiting for a yes, each linking to its approval page. */
function waitingSection(rows: readonly OwnWaitingRow[]): SafeHtml {
  return html`<section id="waiting" class="own-waiting">
<h2>Waiting for a yes</h2>
<ul>${rows.map(
    (w) =>
      html`<li><strong class="client-name">${shownClientName(w.appName) ?? 'Unnamed application'}</strong>: ${w.description} <span class="muted">(expires ${w.expiresAt})</span> ${
        w.yours
          ? html`<a href="/approvals/${w.id}">Approve or refuse</a>`
          : html`<span class="muted">waits for an owner or admin</span>`
      }</li>`,
  )}</ul>
</section>`
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
${m.role === 'owner' || m.role === 'admin' ? html`<p><a href="/account/apps">Apps and agents at ${m.school}</a>: requests waiting, confirmations, integrations.</p>` : ''}
${m.waiting && m.waiting.length > 0 ? waitingSection(m.waiting) : ''}
<h2>Apps you authorized</h2>
${table(m.mine, m.csrf, false)}
${m.everyone ? html`<h2>All connected apps at ${m.school}</h2>${table(m.everyone, m.csrf, true)}` : ''}
${activitySection(m.activity, m.school)}
<form method="post" action="/logout"><input type="hidden" name="csrf" value="${m.logoutCsrf}"><button type="submit">Sign out</button></form>
</section>`,
  })
}
