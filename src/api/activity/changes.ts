import { type Field, type Row, SHORT_TEXT } from '../framework/fields.js'

/** One changed field of a record: its name, and its values where the declaration allows. */
export interface Change {
  readonly field: string
  readonly before?: unknown
  readonly after?: unknown
}

/** The most changes one record keeps (a create of a large record is summarised, not copied). */
const MAX_CHANGES = 40

/** Text longer than short text: never copied, whatever the field says it holds. */
const tooLong = (value: unknown) => typeof value === 'string' && value.length > SHORT_TEXT

/**
 * The fields whose stored value differs between `before` (absent for a create) and `after`
 * (absent for a delete), in declaration order. Values are kept as each field declares
 * (`Field.activity`): closed values, short text and money with their values before and
 * after; long or rich text, structures and anything secret-like by name only. Fields that
 * are not columns (`virtual`) are named when the write gave them.
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
    // Short text is bounded by its declaration; a longer stored value (written before its
    // bound, or behind the API) is named all the same.
    if (
      field.activity === 'name' ||
      (field.activity === 'text' && (tooLong(old) || tooLong(now)))
    ) {
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
