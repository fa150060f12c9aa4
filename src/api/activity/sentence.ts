import { replaceHidden } from '../../platform/visible-text.js'
import { formatMoney, type Money } from '../money/currencies.js'
import type { Change } from './changes.js'
import { keepingOf, nameFieldOf } from './declarations.js'

/** An activity record as a sentence needs it. */
export interface ActivityFacts {
  readonly operation: string
  readonly record_type: string | null
  readonly record_id: string | null
  readonly changes: readonly Change[]
}

const words = (name: string) => name.replaceAll('_', ' ')

/** Past tenses the suffix rule below gets wrong. */
const IRREGULAR: Readonly<Record<string, string>> = { submit: 'submitted', stop: 'stopped' }

/** 'publish' → 'published', 'archive' → 'archived'; a phrase: 'ran “complete lesson” on'. */
function pastOf(action: string): string {
  if (action.includes('_')) return `ran “${words(action)}” on`
  return IRREGULAR[action] ?? (action.endsWith('e') ? `${action}d` : `${action}ed`)
}

/**
 * Text someone wrote (a name, a title), quoted: plain text, for the caller to escape. Hidden
 * characters (a terminal's escapes, line breaks, bidirectional and zero-width ones) are
 * replaced, so a sentence reads the same on a page and in a terminal.
 */
const quoted = (text: string) => `“${replaceHidden(text)}”`

const isMoney = (value: unknown): value is Money =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as Money).amount === 'number' &&
  typeof (value as Money).currency === 'string'

/**
 * A recorded value for people: money in its own currency, yes/no, "none", and text (a field
 * kept as short text, `text`) quoted.
 */
export function valueText(value: unknown, text = false): string {
  if (value === null || value === undefined) return 'none'
  if (isMoney(value)) return formatMoney(value)
  if (typeof value === 'boolean') return value ? 'yes' : 'no'
  if (typeof value === 'string' && text) return quoted(value)
  return replaceHidden(String(value))
}

/** "a, b and c". */
function listed(items: readonly string[]): string {
  if (items.length <= 1) return items.join('')
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`
}

/**
 * What an app did, as the rest of a sentence after its name: "changed the price of
 * “Portrait Lighting” from $49.00 to $39.00", "renamed the course “Old” to “New”". `label`
 * names the record as it is now (its title), when known; a record without one (deleted
 * since) is named by the name its change recorded, or by its type and id. Plain text, for
 * the caller to escape.
 */
export function describeActivity(facts: ActivityFacts, label?: string): string {
  const action = facts.operation.split('.').pop() ?? facts.operation
  const type = facts.record_type ? words(facts.record_type) : 'record'
  const isText = (change: Change) => keepingOf(facts.record_type, change.field) === 'text'
  const naming = facts.changes.find((c) => c.field === nameFieldOf(facts.record_type) && isText(c))
  const recorded = [naming?.after, naming?.before].find((v) => typeof v === 'string')
  const name = label ?? (recorded as string | undefined)
  const record = name
    ? `${type} ${quoted(name)}`
    : facts.record_id
      ? `${type} ${facts.record_id}`
      : type
  const what = name ? quoted(name) : `${type} ${facts.record_id ?? ''}`.trim()
  if (action === 'create') return `created the ${record}`
  if (action === 'delete') return `deleted the ${record}`
  if (action !== 'update') return `${pastOf(action)} the ${record}`
  const values = (c: Change) =>
    'before' in c && 'after' in c
      ? ` from ${valueText(c.before, isText(c))} to ${valueText(c.after, isText(c))}`
      : 'after' in c
        ? ` to ${valueText(c.after, isText(c))}`
        : ''
  const others = facts.changes.filter((c) => c !== naming)
  const [only] = others
  if (typeof naming?.before === 'string' && typeof naming.after === 'string') {
    const renamed = `renamed the ${type} ${quoted(naming.before)} to ${quoted(naming.after)}`
    if (others.length === 0) return renamed
    if (others.length === 1 && only)
      return `${renamed} and changed its ${words(only.field)}${values(only)}`
    return `${renamed} and changed its ${listed(others.map((c) => words(c.field)))}`
  }
  const [single] = facts.changes
  if (facts.changes.length === 1 && single)
    return `changed the ${words(single.field)} of ${what}${values(single)}`
  const fields = facts.changes.map((c) => words(c.field))
  return fields.length > 0 ? `changed the ${listed(fields)} of ${what}` : `changed ${what}`
}

/** "just now", "10 minutes ago", "3 hours ago", "2 days ago". */
export function timeAgo(at: number, now: number): string {
  const minutes = Math.floor((now - at) / 60_000)
  if (minutes < 1) return 'just now'
  const [n, unit] =
    minutes < 60
      ? [minutes, 'minute']
      : minutes < 48 * 60
        ? [Math.floor(minutes / 60), 'hour']
        : [Math.floor(minutes / 1440), 'day']
  return `${n} ${unit}${n === 1 ? '' : 's'} ago`
}
