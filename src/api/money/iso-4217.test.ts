import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { data } from 'currency-codes'
import { describe, expect, it } from 'vitest'
import { formatMoney } from './currencies.js'
import { isPriceCurrency, minorUnitOf, priceCurrencies, readListOne } from './iso-4217.js'

const LIST_ONE = readFileSync(
  createRequire(import.meta.url).resolve('currency-codes/iso-4217-list-one.xml'),
  'utf8',
)
/** Intl separates a code from the number with a no-break space; the tests read plain ones. */
const shown = (amount: number, currency: string) =>
  formatMoney({ amount, currency }).replace(/\s/gu, ' ')

describe('ISO 4217: the codes money is written in', () => {
  it('accepts active currencies with a minor unit', () => {
    for (const code of ['USD', 'EUR', 'GBP', 'JPY', 'KWD', 'BHD', 'XAF', 'XOF', 'CHF', 'ZWG'])
      expect(isPriceCurrency(code), code).toBe(true)
  })

  it('refuses codes off the list, without a minor unit, funds and anything not 3 capitals', () => {
    const refused = ['BTC', 'ZZZ', 'HRK', 'XXX', 'XTS', 'XAU', 'XAG', 'XDR', 'XBA', 'XSU', 'XUA']
    const funds = ['USN', 'CLF', 'BOV', 'CHE', 'CHW', 'COU', 'MXV', 'UYI']
    const malformed = ['usd', 'Usd', 'US', 'USDX', '', ' USD', 'USD ', '__proto__', 'constructor']
    for (const code of [...refused, ...funds, ...malformed])
      expect(isPriceCurrency(code), code).toBe(false)
  })

  it('knows each code’s own minor unit, where ISO and Intl (CLDR) differ too', () => {
    expect(minorUnitOf('JPY')).toBe(0)
    expect(minorUnitOf('USD')).toBe(2)
    expect(minorUnitOf('KWD')).toBe(3)
    expect(minorUnitOf('IQD')).toBe(3) // CLDR: 0
    expect(minorUnitOf('HUF')).toBe(2) // CLDR: 0
    expect(minorUnitOf('CLF')).toBe(4) // a fund: read, never written
    expect(minorUnitOf('XXX')).toBeUndefined() // "N.A." in list one, 0 in the package's data
    expect(minorUnitOf('XAU')).toBeUndefined()
    expect(minorUnitOf('BTC')).toBeUndefined()
  })

  it('lists every accepted code once, each one the package also knows with the same digits', () => {
    const codes = priceCurrencies()
    expect(codes.length).toBeGreaterThan(150)
    expect(new Set(codes).size).toBe(codes.length)
    for (const code of codes)
      expect(data.find((r) => r.code === code)?.digits, code).toBe(minorUnitOf(code))
  })

  it('fails to load a list it cannot read rather than accept other codes', () => {
    expect(readListOne(LIST_ONE).get('KWD')).toEqual({ code: 'KWD', minorUnit: 3, fund: false })
    const changed = LIST_ONE.replace(
      /(<Ccy>KWD<\/Ccy>\s*<CcyNbr>414<\/CcyNbr>\s*<CcyMnrUnts>)3/,
      '$12',
    )
    expect(changed).not.toBe(LIST_ONE)
    expect(() => readListOne(changed)).toThrow(/KWD disagrees/)
    expect(() => readListOne(LIST_ONE.replaceAll('N.A.', 'none'))).toThrow(/minor unit of none/)
    expect(() => readListOne(LIST_ONE.replace(/Pblshd="[^"]*"/, 'Pblshd="2001-01-01"'))).toThrow(
      /published/,
    )
    expect(() => readListOne('<ISO_4217 Pblshd="2024-06-25"></ISO_4217>')).toThrow(/only 0/)
  })
})

describe('formatMoney: the ISO minor unit decides the decimals', () => {
  it('shows zero-, two- and three-decimal currencies with exactly their digits', () => {
    expect(shown(500, 'JPY')).toBe('¥500')
    expect(shown(4900, 'USD')).toBe('$49.00')
    expect(shown(1234, 'KWD')).toBe('KWD 1.234')
    expect(shown(1000, 'KWD')).toBe('KWD 1.000')
    expect(shown(-250, 'USD')).toBe('-$2.50')
  })

  it('follows ISO where Intl’s own digits differ (HUF, IQD)', () => {
    expect(shown(1050, 'HUF')).toBe('HUF 10.50')
    expect(shown(1234, 'IQD')).toBe('IQD 1.234')
  })

  it('shows a stored code without an ISO minor unit in minor units, labelled', () => {
    expect(shown(500, 'BTC')).toBe('500 BTC (minor units)')
    expect(shown(500, 'XAU')).toBe('500 XAU (minor units)')
    expect(shown(500, 'usd')).toBe('500 usd (minor units)')
  })
})
