import { shownClientName } from './client-name.js'
import { html } from './html.js'
import { type Brand, layout } from './layout.js'

/** Where an approval stands, as the page tells it. */
export type ApprovalState = 'pending' | 'approved' | 'refused' | 'used' | 'expired'

export interface ApprovalPageModel {
  readonly school: string
  readonly brand?: Brand
  readonly id: string
  readonly state: ApprovalState
  readonly clientName: string | undefined
  /** The person the app acts for: `Name <email>`. */
  readonly person: string
  readonly operation: string
  readonly description: string
  /** Who may say yes: the person, or an owner or admin. */
  readonly level: 'person' | 'owner'
  readonly expiresAt: string
  /** Who decided and when, once decided. */
  readonly decided?: { readonly by: string; readonly at: string }
  readonly userName: string
  readonly userEmail: string
  readonly csrf: string
  readonly logoutCsrf: string
}

const STATES: Readonly<Record<Exclude<ApprovalState, 'pending'>, string>> = {
  approved: 'Approved. The app can now repeat its request, and it will run once.',
  refused: 'Refused. Nothing was changed.',
  used: 'Approved and done: the request ran once.',
  expired: 'This request expired without running. The app can ask again.',
}

/** The approval page (issue 35): what an app wants to do, and Approve / Refuse. */
export function approvalPage(m: ApprovalPageModel): string {
  const app = shownClientName(m.clientName) ?? 'An unnamed application'
  return layout({
    title: `Approve a request · ${m.school}`,
    school: m.school,
    brand: m.brand,
    body: html`<section class="card approval">
<h1><span class="client-name">${app}</span> asks for your yes</h1>
<p class="approval-description"><strong>${m.description}</strong></p>
<dl class="approval-facts">
<dt>App</dt><dd class="client-name">${app}</dd>
<dt>Acting for</dt><dd class="approval-person">${m.person}</dd>
<dt>Operation</dt><dd><code>${m.operation}</code></dd>
<dt>Who may approve</dt><dd>${m.level === 'owner' ? 'An owner or admin of the school' : 'The person the app acts for'}</dd>
<dt>Expires</dt><dd>${m.expiresAt}</dd>
${m.decided ? html`<dt>Decided</dt><dd class="approval-decided">${m.decided.by}, ${m.decided.at}</dd>` : ''}
</dl>
${
  m.state === 'pending'
    ? html`<form method="post" action="/approvals/${m.id}" class="decision">
<input type="hidden" name="csrf" value="${m.csrf}">
<button type="submit" name="decision" value="approve" class="primary">Approve</button>
<button type="submit" name="decision" value="refuse">Refuse</button>
</form>
<p class="muted">Nothing happens until you approve. The app then repeats the same request, and it runs once.</p>`
    : html`<p class="approval-state state-${m.state}" role="status">${STATES[m.state]}</p>`
}
<p class="muted">Signed in as ${m.userName} (${m.userEmail}).</p>
<form method="post" action="/logout" class="inline"><input type="hidden" name="csrf" value="${m.logoutCsrf}"><button type="submit" class="link">Not you? Sign out</button></form>
</section>`,
  })
}
