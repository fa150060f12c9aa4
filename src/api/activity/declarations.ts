import type { ActivityKeeping, Field } from '../framework/fields.js'
import { ACCOUNT_CHANGES } from '../people/own-account.js'
import { RESOURCES } from '../registry.js'

/** The declared fields of the record types that are not resources (the own account). */
const OTHER_FIELDS: Readonly<Record<string, Readonly<Record<string, Field>>>> = {
  account: ACCOUNT_CHANGES,
}

/** The fields a record type declares: a resource's, or the own account's. */
export function fieldsOf(type: string | null): Readonly<Record<string, Field>> | undefined {
  if (type === null) return undefined
  return RESOURCES.find((r) => r.object === type)?.fields ?? OTHER_FIELDS[type]
}

/** How the activity record keeps a change of `field` of a `type` record, as declared. */
export function keepingOf(type: string | null, field: string): ActivityKeeping | undefined {
  return fieldsOf(type)?.[field]?.activity
}

/** The field that names a record of `type` (its `title` or `name` column), if it has one. */
export function nameFieldOf(type: string | null): string | undefined {
  const fields = fieldsOf(type)
  return ['title', 'name'].find((c) => fields?.[c] && !fields[c].options.virtual)
}
