/**
 * ISO 4217: which codes money may be written in, and how many decimals each one has.
 *
 * The source is ISO 4217 list one as its maintenance agency (SIX) publishes it, shipped by
 * the `currency-codes` package as `iso-4217-list-one.xml` beside the data it generates from
 * it. The XML is read rather than the package's `data`, because the generated data writes a
 * minor unit of "N.A." (gold, XDR, the test code XTS, "no currency" XXX …) as 0, which would
 * make those codes look like zero-decimal currencies; and only the XML marks fund codes.
 * Both are checked against each other when this module loads, so a package update that
 * changes either shape fails at once instead of quietly accepting other codes.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { code as packagedRecord, publishDate } from 'currency-codes'

/** One code of list one, merged over the countries that use it. */
export interface Iso4217Entry {
  readonly code: string
  /** Decimals of its minor unit; null where the list says "N.A." (no minor unit). */
  readonly minorUnit: number | null
  /** A fund code (USN, CLF, BOV …): a unit of account, not a currency prices are set in. */
  readonly fund: boolean
}

/** The date of the list one the package ships (YYYY-MM-DD). */
export const ISO_4217_PUBLISHED: string = publishDate

function entryOf(block: string): Iso4217Entry | undefined {
  const code = /<Ccy>([^<]*)<\/Ccy>/.exec(block)?.[1]
  // An entry without a code: a territory with no universal currency (Antarctica).
  if (code === undefined) return undefined
  const units = /<CcyMnrUnts>([^<]*)<\/CcyMnrUnts>/.exec(block)?.[1]
  const name = /<CcyNm([^>]*)>/.exec(block)?.[1]
  if (!/^[A-Z]{3}$/.test(code) || units === undefined || name === undefined)
    throw new Error(`ISO 4217 list one: an entry this module cannot read: ${block.trim()}`)
  if (units !== 'N.A.' && !/^\d$/.test(units))
    throw new Error(`ISO 4217 list one: ${code} has a minor unit of ${units}`)
  return {
    code,
    minorUnit: units === 'N.A.' ? null : Number(units),
    fund: /\bIsFund="true"/.test(name),
  }
}

/** Reads list one from the package, one entry per code; throws when it does not agree. */
export function readListOne(xml: string): Map<string, Iso4217Entry> {
  const published = /<ISO_4217 Pblshd="([^"]*)">/.exec(xml)?.[1]
  if (published !== publishDate)
    throw new Error(`ISO 4217 list one: published ${published}, the package says ${publishDate}`)
  const entries = new Map<string, Iso4217Entry>()
  for (const [, block = ''] of xml.matchAll(/<CcyNtry>([\s\S]*?)<\/CcyNtry>/g)) {
    const entry = entryOf(block)
    if (!entry) continue
    const seen = entries.get(entry.code)
    if (seen && (seen.minorUnit !== entry.minorUnit || seen.fund !== entry.fund))
      throw new Error(`ISO 4217 list one: ${entry.code} is listed twice, differently`)
    // The package's own record of the code must agree ("N.A." is 0 there).
    if (packagedRecord(entry.code)?.digits !== (entry.minorUnit ?? 0))
      throw new Error(`ISO 4217 list one: ${entry.code} disagrees with the package's data`)
    entries.set(entry.code, entry)
  }
  if (entries.size < 150) throw new Error(`ISO 4217 list one: only ${entries.size} codes read`)
  return entries
}

const LIST_ONE = readListOne(
  readFileSync(
    createRequire(import.meta.url).resolve('currency-codes/iso-4217-list-one.xml'),
    'utf8',
  ),
)

/**
 * Whether money may be written in `code`: an active ISO 4217 currency (list one) with a
 * minor unit, not a fund. Refused: codes not on the list (BTC, ZZZ, withdrawn ones), codes
 * without a minor unit (XXX, the test code XTS, XDR, precious metals, bond market units),
 * fund codes (USN, CLF …), and anything not exactly three capitals.
 */
export function isPriceCurrency(code: string): boolean {
  const entry = LIST_ONE.get(code)
  return entry !== undefined && entry.minorUnit !== null && !entry.fund
}

/**
 * The decimals of `code`'s minor unit per ISO 4217 (JPY 0, USD 2, KWD 3, CLF 4), for any
 * code of list one that has one (funds included, to read what was stored); undefined for
 * other codes.
 */
export function minorUnitOf(code: string): number | undefined {
  return LIST_ONE.get(code)?.minorUnit ?? undefined
}

/** Every code money may be written in, alphabetically. */
export function priceCurrencies(): string[] {
  return [...LIST_ONE.values()]
    .filter((e) => e.minorUnit !== null && !e.fund)
    .map((e) => e.code)
    .sort()
}
