import { formatMoney, type Money } from '../money/currencies.js'
import type { Change } from './changes.js'

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

const isMoney = (value: unknown): value is Money =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as Money).amount === 'number' &&
  typeof (value as Money).currency === 'string'

/** A recorded value for people: money in its own currency, yes/no, "none". */
export function valueText(value: unknown): string {
  if (value === null || value === undefined) return 'none'
  if (isMoney(value)) return formatMoney(value)
  if (typeof value === 'boolean') return value ? 'yes' : 'no'
  return String(value)
}

/** "a, b and c". */
function listed(items: readonly string[]): string {
  if (items.length <= 1) return items.join('')
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`
}

/**
 * What an app did, as the rest of a sentence after its name: "changed the price of Portrait
 * Lighting from $49.00 to $39.00". `label` names the record (its title), when known; plain
 * text, for the caller to escape.
 */
export function describeActivity(facts: ActivityFacts, label?: string): string {
  const action = facts.operation.split('.').pop() ?? facts.operation
  const type = facts.record_type ? words(facts.record_type) : 'record'
  const record = label
    ? `${type} “${label}”`
    : facts.record_id
      ? `${type} ${facts.record_id}`
      : type
  const what = label ? `“${label}”` : `${type} ${facts.record_id ?? ''}`.trim()
  if (action === 'create') return `created the ${record}`
  if (action === 'delete') return `deleted the ${record}`
  if (action === 'update') {
    const [only] = facts.changes
    if (facts.changes.length === 1 && only) {
      const values =
        'before' in only && 'after' in only
          ? ` from ${valueText(only.before)} to ${valueText(only.after)}`
          : 'after' in only
            ? ` to ${valueText(only.after)}`
            : ''
      return `changed the ${words(only.field)} of ${what}${values}`
    }
    const fields = facts.changes.map((c) => words(c.field))
    return fields.length > 0 ? `changed the ${listed(fields)} of ${what}` : `changed ${what}`
  }
  return `${pastOf(action)} the ${record}`
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
