/** Markup that is already safe: produced by the `html` tag, never by concatenating input. */
export class SafeHtml {
  readonly value: string
  constructor(value: string) {
    this.value = value
  }
  toString(): string {
    return this.value
  }
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
}

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c)
}

type Interpolation =
  | SafeHtml
  | string
  | number
  | boolean
  | null
  | undefined
  | readonly Interpolation[]

function render(value: Interpolation): string {
  if (value === null || value === undefined || value === false) return ''
  if (value instanceof SafeHtml) return value.value
  if (Array.isArray(value)) return value.map(render).join('')
  return escapeHtml(String(value))
}

/**
 * Auto-escaping template tag: every interpolated value is escaped unless it is itself the
 * result of `html`. Values land only in text and in quoted attribute values.
 *
 * @example html`<p title="${name}">${name}</p>`
 */
export function html(strings: TemplateStringsArray, ...values: Interpolation[]): SafeHtml {
  let out = strings[0] ?? ''
  for (let i = 0; i < values.length; i++)
    out += render(values[i] as Interpolation) + (strings[i + 1] ?? '')
  return new SafeHtml(out)
}
