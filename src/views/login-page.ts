import { shownClientName } from './client-name.js'
import { html } from './html.js'
import { type Brand, layout } from './layout.js'
import { type UnverifiedTool, unverifiedToolWarning } from './unverified-tool-warning.js'

export interface LoginPageModel {
  readonly school: string
  /** The school's logo and colour for the header; the name alone without it. */
  readonly brand?: Brand
  readonly csrf: string
  /** The pending authorization request this sign-in continues, if any. */
  readonly request?: string
  /** The approval page this sign-in returns to (an approval's id), if any. */
  readonly approval?: string
  /** The signed-in page this sign-in returns to (`/account/apps`), if any. */
  readonly to?: string
  /** Which application asked, when signing in for one. */
  readonly clientName?: string
  /** Set when nobody at the school vetted that application: the unverified-tool warning. */
  readonly unverified?: UnverifiedTool
  readonly email?: string
  readonly error?: string
}

export function loginPage(model: LoginPageModel): string {
  return layout({
    title: `Sign in · ${model.school}`,
    school: model.school,
    brand: model.brand,
    body: html`<section class="card">
<h1>Sign in</h1>
${model.approval && !model.request ? html`<p>An app is waiting for your yes. Sign in to see what it asks.</p>` : ''}
${shownClientName(model.clientName) ? html`<p><strong>${shownClientName(model.clientName)}</strong> wants to access your account at ${model.school}. Sign in to continue.</p>` : ''}
${model.clientName && model.unverified ? unverifiedToolWarning(model.school, model.unverified) : ''}
${model.error ? html`<p class="error" role="alert" id="login-error">${model.error}</p>` : ''}
<form method="post" action="/login" ${model.error ? html`aria-describedby="login-error"` : ''}>
<input type="hidden" name="csrf" value="${model.csrf}">
${model.request ? html`<input type="hidden" name="request" value="${model.request}">` : ''}
${model.approval ? html`<input type="hidden" name="approval" value="${model.approval}">` : ''}
${model.to ? html`<input type="hidden" name="to" value="${model.to}">` : ''}
<label for="email">E-mail</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${model.email ?? ''}" ${model.email ? '' : html`autofocus`}>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required maxlength="1024" ${model.email ? html`autofocus` : ''}>
<button type="submit" class="primary">Sign in</button>
</form>
</section>`,
  })
}
