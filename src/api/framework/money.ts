import { moneyListSchema } from '../money/definitions.js'
import { type Field, type FieldOptions, integer, text } from './fields.js'
import { object, structure } from './structures.js'

/** Money: integer minor units and an ISO 4217 currency (DOMAIN.md §4.0). */
export const money = (options: FieldOptions = {}): Field => ({
  ...object(
    {
      amount: integer({ required: true, max: 100_000_000 }),
      currency: text({
        required: true,
        max: 3,
        pattern: /^[A-Z]{3}$/,
        patternHint: 'an ISO 4217 code',
      }),
    },
    options,
  ),
  activity: 'money',
})

/**
 * A money figure the server computes (read only): a per-currency list of Money, described by
 * its definition in src/api/money/definitions.ts.
 */
export const moneyList = (definition: string) =>
  structure(moneyListSchema(definition), () => undefined, { readOnly: true })
