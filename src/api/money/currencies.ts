/**
 * Currencies never mix: every money figure is a list of Money, one entry per currency, each
 * the sum of amounts in that currency only. No conversion, no relabelling.
 */

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
 * One Money for people to read, in its own currency: 4900 USD → "$49.00", 500 JPY → "¥500".
 * The currency's own minor unit decides the decimals; nothing is converted or relabelled.
 */
export function formatMoney(money: Money, locale = 'en-US'): string {
  try {
    const format = new Intl.NumberFormat(locale, { style: 'currency', currency: money.currency })
    const digits = format.resolvedOptions().maximumFractionDigits ?? 2
    return format.format(money.amount / 10 ** digits)
  } catch {
    // A code Intl does not know: the amount in minor units, labelled with its own code.
    return `${money.amount} ${money.currency} (minor units)`
  }
}
