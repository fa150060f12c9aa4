import type { Field, Row } from '../framework/fields.js'

/** One changed field of a record: its name, and its values where the declaration allows. */
export interface Change {
  readonly field: string
  readonly before?: unknown
  readonly after?: unknown
}

/** The most changes one record keeps (a create of a large record is summarised, not copied). */
const MAX_CHANGES = 40

/**
 * The fields whose stored value differs between `before` (absent for a create) and `after`
 * (absent for a delete), in declaration order. Values are kept only for fields whose
 * declaration says they are safe to show (`Field.activity`: closed kinds and money); every
 * other field (free text, HTML, structures) is named without its values. Fields that are
 * not columns (`virtual`) are named when the write gave them.
 */
export function changesOf(
  fields: Readonly<Record<string, Field>>,
  before: Row | undefined,
  after: Row | undefined,
  written: Row = {},
): Change[] {
  const changes: Change[] = []
  for (const [name, field] of Object.entries(fields)) {
    if (field.options.virtual) {
      if (written[name] !== undefined) changes.push({ field: name })
      continue
    }
    const old = before?.[name] ?? null
    const now = after?.[name] ?? null
    if (JSON.stringify(old) === JSON.stringify(now)) continue
    if (field.activity === undefined) {
      changes.push({ field: name })
      continue
    }
    changes.push({
      field: name,
      ...(before && { before: field.fromColumn(old) }),
      ...(after && { after: field.fromColumn(now) }),
    })
  }
  return changes.slice(0, MAX_CHANGES)
}
