import { type FieldOptions, integer, text } from './fields.js'
import { object } from './structures.js'

/** Money: integer minor units and an ISO 4217 currency (DOMAIN.md §4.0). */
export const money = (options: FieldOptions = {}) =>
  object(
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
  )
