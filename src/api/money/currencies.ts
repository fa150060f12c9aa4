/**
 * Currencies never mix: every money figure is a list of Money, one entry per currency, each
 * the sum of amounts in that currency only. No conversion, no relabelling.
 */
import { minorUnitOf } from './iso-4217.js'

/** Integer minor units of one ISO 4217 currency (DOMAIN.md §4.0). */
export interface Money {
  readonly amount: number
  readonly currency: string
}

/**
 * The currencies a school's figures list, in order: the school's currency first (even without
 * records), then every other currency its orders or subscriptions are in, alphabetically. A
 * currency change therefore moves the new currency to the front and keeps the old one listed.
 */
export function currencyOrder(schoolCurrency: string, seen: Iterable<string>): string[] {
  const others = [...new Set(seen)].filter((c) => c !== schoolCurrency).sort()
  return [schoolCurrency, ...others]
}

/** Sums of amounts kept apart by currency. */
export class PerCurrency {
  private readonly sums = new Map<string, number>()

  add(currency: string, amount: number): void {
    this.sums.set(currency, (this.sums.get(currency) ?? 0) + amount)
  }

  get(currency: string): number {
    return this.sums.get(currency) ?? 0
  }

  /** One Money per listed currency, zeros included, in the list's order. */
  list(currencies: readonly string[]): Money[] {
    return currencies.map((currency) => ({ amount: this.get(currency), currency }))
  }
}

/**
 * One Money for people to read, in its own currency: 4900 USD → "$49.00", 500 JPY → "¥500",
 * 1234 KWD → "KWD 1.234". The currency's ISO 4217 minor unit (iso-4217.ts) decides the
 * decimals, not Intl's own (CLDR shows HUF and IQD without decimals); nothing is converted or
 * relabelled. A code without an ISO minor unit (stored before codes were checked, or withdrawn
 * since) is shown in minor units, labelled with its code.
 */
export function formatMoney(money: Money, locale = 'en-US'): string {
  const digits = minorUnitOf(money.currency)
  if (digits === undefined) return `${money.amount} ${money.currency} (minor units)`
  return new Intl.NumberFormat(locale, {
    style: 'currency',
    currency: money.currency,
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  }).format(money.amount / 10 ** digits)
}
