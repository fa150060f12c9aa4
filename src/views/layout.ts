import { html, type SafeHtml } from './html.js'

export interface LayoutOptions {
  readonly title: string
  readonly body: SafeHtml
  /** The school's name, shown in the header. */
  readonly school?: string
}

/** The page shell: no scripts, one stylesheet from this origin, readable on a phone. */
export function layout({ title, body, school }: LayoutOptions): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title}</title>
<link rel="stylesheet" href="/assets/portico.css">
</head>
<body>
<header class="top"><span class="brand">${school ?? 'Portico'}</span></header>
<main>
${body}
</main>
</body>
</html>
`.value
}
