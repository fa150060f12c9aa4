import type { ActivityEntry } from './account-page.js'
import { shownClientName } from './client-name.js'
import { html, type SafeHtml } from './html.js'
import { type Brand, layout } from './layout.js'

/** A request waiting for a yes, as the Apps and agents page lists it. */
export interface WaitingRow {
  readonly id: string
  readonly appName: string | undefined
  /** The person the app acts for: `Name <email>`. */
  readonly person: string
  readonly operation: string
  readonly description: string
  readonly level: 'person' | 'owner'
  readonly expiresAt: string
  /** Whether the viewer may decide it (the approval page's rule); if not, who may. */
  readonly mayDecide: boolean
}

/** One live grant of the school. */
export interface GrantRow {
  readonly grantId: string
  readonly appName: string | undefined
  /** How the app is known: its metadata document URL, a registered integration, or self-registered. */
  readonly kind: 'metadata_document' | 'integration' | 'self_registered'
  readonly clientId: string
  /** For a metadata document: whether an owner trusted it. */
  readonly trusted: boolean
  readonly person: string
  readonly scopes: readonly string[]
  readonly grantedAt: string
  readonly lastUsed: string
  /** Why the viewer may not revoke it (shown instead of the button), if so. */
  readonly refusal?: string
}

/** One write of the catalogue and its confirmation. */
export interface PolicyRowModel {
  readonly operation: string
  /** `depends`: decided per call by the operation's rule. */
  readonly default: 'none' | 'person' | 'owner' | 'depends'
  readonly setting: 'none' | 'person' | 'owner' | undefined
}

export interface AppsPageModel {
  readonly school: string
  readonly brand?: Brand
  readonly userName: string
  readonly userEmail: string
  readonly waiting: readonly WaitingRow[]
  readonly grants: readonly GrantRow[]
  readonly policy: readonly PolicyRowModel[]
  readonly trusted: readonly { readonly url: string; readonly since: string }[]
  readonly integrations: readonly {
    readonly clientId: string
    readonly name: string | undefined
    readonly redirectUris: readonly string[]
  }[]
  readonly activity: readonly ActivityEntry[]
  readonly csrf: string
  readonly logoutCsrf: string
  readonly notice?: string
  readonly error?: string
  /** The URL typed into the trust form, shown again after a refusal. */
  readonly trustUrl?: string
}

const appName = (name: string | undefined) => shownClientName(name) ?? 'Unnamed application'

const WHO: Readonly<Record<WaitingRow['level'], string>> = {
  person: 'the person the app acts for',
  owner: 'an owner or admin',
}

function waitingSection(m: AppsPageModel): SafeHtml {
  return html`<section id="waiting" aria-labelledby="waiting-title">
<h2 id="waiting-title">Requests waiting for a yes</h2>
${
  m.waiting.length === 0
    ? html`<p class="muted">No request is waiting.</p>`
    : html`<ul class="rows">${m.waiting.map(
        (w) => html`<li class="waiting-request">
<p><strong class="client-name">${appName(w.appName)}</strong> <span class="muted">for ${w.person}</span></p>
<p class="approval-description">${w.description}</p>
<p class="muted"><code>${w.operation}</code> · ${WHO[w.level]} says yes · expires ${w.expiresAt}</p>
${
  w.mayDecide
    ? html`<form method="post" action="/account/apps/approvals/${w.id}" class="decision">
<input type="hidden" name="csrf" value="${m.csrf}">
<button type="submit" name="decision" value="approve" class="primary" aria-label="Approve: ${w.description}">Approve</button>
<button type="submit" name="decision" value="refuse" aria-label="Refuse: ${w.description}">Refuse</button>
</form>`
    : html`<p class="muted">Only ${w.person} can answer this one (signed in, on <a href="/approvals/${w.id}">its approval page</a> or in their app).</p>`
}
</li>`,
      )}</ul>`
}
</section>`
}

function howKnown(g: GrantRow): SafeHtml {
  if (g.kind === 'metadata_document')
    return html`metadata document <code class="document-url">${g.clientId}</code>${g.trusted ? ' (trusted)' : ' (not reviewed)'}`
  if (g.kind === 'integration') return html`registered integration <code>${g.clientId}</code>`
  return html`self-registered tool <code>${g.clientId}</code>`
}

function grantsSection(m: AppsPageModel): SafeHtml {
  return html`<section id="connected" aria-labelledby="connected-title">
<h2 id="connected-title">Connected apps</h2>
${
  m.grants.length === 0
    ? html`<p class="muted">No app is connected.</p>`
    : html`<ul class="rows">${m.grants.map(
        (g) => html`<li class="connected-app">
<p><strong class="client-name">${appName(g.appName)}</strong> <span class="muted">for ${g.person}</span></p>
<p class="muted">${howKnown(g)}</p>
<p>${g.scopes.map((s) => html`<code>${s}</code> `)}</p>
<p class="muted">Granted ${g.grantedAt} · last used ${g.lastUsed}</p>
${
  g.refusal
    ? html`<p class="muted">${g.refusal}</p>`
    : html`<form method="post" action="/account/apps/revoke">
<input type="hidden" name="csrf" value="${m.csrf}"><input type="hidden" name="grant_id" value="${g.grantId}">
<button type="submit" aria-label="Revoke access of ${appName(g.appName)} for ${g.person}">Revoke</button>
</form>`
}
</li>`,
      )}</ul>`
}
</section>`
}

const LEVELS = ['none', 'person', 'owner'] as const

function policySection(m: AppsPageModel): SafeHtml {
  return html`<section id="policy" aria-labelledby="policy-title">
<h2 id="policy-title">Which calls wait for a yes</h2>
<p class="muted">For each write an app can make: <strong>none</strong> runs at once, <strong>person</strong> waits for the person the app acts for, <strong>owner</strong> for an owner or admin. Each change is kept in the activity record.</p>
<form method="post" action="/account/apps/policy">
<input type="hidden" name="csrf" value="${m.csrf}">
<ul class="rows policy-list">${m.policy.map(
    (p) => html`<li><label for="level-${p.operation}"><code>${p.operation}</code></label>
<select id="level-${p.operation}" name="level:${p.operation}">
<option value="default"${p.setting === undefined ? html` selected` : ''}>default (${p.default === 'depends' ? 'depends on the call' : p.default})</option>
${LEVELS.map((l) => html`<option value="${l}"${p.setting === l ? html` selected` : ''}>${l}</option>`)}
</select></li>`,
  )}</ul>
<button type="submit" class="primary">Save the confirmations</button>
</form>
</section>`
}

function trustSection(m: AppsPageModel): SafeHtml {
  return html`<section id="integrations" aria-labelledby="integrations-title">
<h2 id="integrations-title">Trusted metadata documents and registered integrations</h2>
${
  m.trusted.length === 0 && m.integrations.length === 0
    ? html`<p class="muted">None yet.</p>`
    : html`<ul class="rows">${m.trusted.map(
        (t) =>
          html`<li class="trusted-document"><code>${t.url}</code> <span class="muted">trusted metadata document, since ${t.since}</span></li>`,
      )}${m.integrations.map(
        (i) =>
          html`<li class="integration"><strong class="client-name">${appName(i.name)}</strong> <span class="muted">registered integration <code>${i.clientId}</code>${i.redirectUris.length > 0 ? html`, returns to ${i.redirectUris.map((u) => html`<code>${u}</code> `)}` : ''}</span></li>`,
      )}</ul>`
}
<form method="post" action="/account/apps/trust">
<input type="hidden" name="csrf" value="${m.csrf}">
<label for="trust-url">Trust a hosted agent’s metadata document (its client_id URL)</label>
<input id="trust-url" name="url" type="url" inputmode="url" required placeholder="https://agent.example/oauth/client.json" value="${m.trustUrl ?? ''}">
<button type="submit">Trust</button>
</form>
</section>`
}

function activitySection(m: AppsPageModel): SafeHtml {
  return html`<section id="activity" aria-labelledby="activity-title">
<h2 id="activity-title">Recent activity</h2>
${
  m.activity.length === 0
    ? html`<p class="muted">No changes recorded.</p>`
    : html`<ol class="activity-list">${m.activity.map(
        (e) =>
          html`<li><strong class="client-name">${appName(e.appName)}</strong>${e.person ? html` <span class="muted">(${e.person})</span>` : ''} ${e.sentence}, <time datetime="${e.at}" title="${e.at}">${e.ago}</time>${
            e.approvedBy
              ? html` <span class="muted approved-by">(approved by ${e.approvedBy})</span>`
              : ''
          }</li>`,
      )}</ol>`
}
<p><a href="/account#activity">Older changes</a></p>
</section>`
}

/**
 * The Apps and agents page (issue 35), for owners and admins: the requests waiting for a yes,
 * the connected apps, the confirmation policy, the trusted documents and integrations, and
 * what the apps changed. Plain forms, no script.
 */
export function appsPage(m: AppsPageModel): string {
  return layout({
    title: `Apps and agents · ${m.school}`,
    school: m.school,
    brand: m.brand,
    body: html`<section class="card wide apps-page">
<h1>Apps and agents</h1>
<p>${m.userName} (${m.userEmail}) · <a href="/account">Your account</a></p>
${m.notice ? html`<p class="notice" role="status">${m.notice}</p>` : ''}
${m.error ? html`<p class="error" role="alert">${m.error}</p>` : ''}
<nav aria-label="On this page"><a href="#waiting">Waiting</a> · <a href="#connected">Connected</a> · <a href="#integrations">Integrations</a> · <a href="#activity">Activity</a> · <a href="#policy">Confirmations</a></nav>
${waitingSection(m)}
${grantsSection(m)}
${trustSection(m)}
${activitySection(m)}
${policySection(m)}
<form method="post" action="/logout"><input type="hidden" name="csrf" value="${m.logoutCsrf}"><button type="submit">Sign out</button></form>
</section>`,
  })
}
