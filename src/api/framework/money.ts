import { isPriceCurrency } from '../money/iso-4217.js'
import { type Field, type FieldOptions, fail, integer, text } from './fields.js'
import { derived, object } from './structures.js'
import { shown } from './views.js'

/** How a currency is described in every schema (a tool's says it shortly: portable-schema.ts). */
export const CURRENCY_DESCRIPTION =
  'An ISO 4217 currency with a minor unit, e.g. USD, JPY, KWD (no XXX, XTS, metals, funds)'

/** How an amount of Money is described in every schema. */
export const AMOUNT_DESCRIPTION =
  'Integer minor units: USD 4900 = $49.00, JPY 500 = ¥500, KWD 1234 = KWD 1.234'

const ACCEPTED_CURRENCY =
  'an active ISO 4217 currency code with a minor unit, in capitals, such as USD, EUR, JPY or KWD'

/**
 * A currency code, wherever one is written (a school's currency, the currency of Money):
 * only what iso-4217.ts accepts (active, with a minor unit, not a fund), else 422
 * `invalid_currency`. The schema keeps to a pattern, not an enum of every code, so that tool
 * schemas stay small; the list is checked here, on REST and MCP alike. A closed kind: the
 * activity record keeps its values.
 */
export function currencyCode(options: FieldOptions = {}): Field {
  const inner = text({
    description: CURRENCY_DESCRIPTION,
    ...options,
    min: 3,
    max: 3,
    pattern: /^[A-Z]{3}$/,
  })
  return {
    ...inner,
    parse(value, path, errors) {
      if (typeof value !== 'string') return inner.parse(value, path, errors)
      if (isPriceCurrency(value)) return value
      return fail(errors, path, 'invalid_currency', `${path} must be ${ACCEPTED_CURRENCY}`)
    },
    // A closed kind, unless declared to be named only.
    activity: options.activity ?? 'value',
  }
}

/** Money: integer minor units and an ISO 4217 currency (DOMAIN.md §4.0). */
export const money = (options: FieldOptions = {}): Field => ({
  ...object(
    {
      amount: integer({
        required: true,
        max: 100_000_000,
        description: AMOUNT_DESCRIPTION,
      }),
      currency: currencyCode({ required: true }),
    },
    options,
  ),
  activity: 'money',
})

/**
 * A money figure the server computes (read only): a per-currency list of Money, described by
 * its definition in src/api/money/definitions.ts.
 */
export const moneyList = (definition: string) => derived(shown.money(definition))
