/**
 * Self-declared text that Portico shows to people (a client's name on the consent, sign-in
 * and account pages): it must read the same on every screen. Invisible and formatting
 * characters let a name hide a second meaning, so they are refused:
 *
 * - Cc: control characters (tabs, new lines, escapes);
 * - Cf: format characters, among them every bidirectional control (U+200E/F, U+202A–E,
 *   U+2066–9, U+061C), zero-width spaces and joiners, the word joiner and the BOM;
 * - Zl, Zp: the line and paragraph separators;
 * - other default-ignorable code points that render as nothing (Hangul fillers, U+034F),
 *   except the emoji variation selectors U+FE00–FE0F, which only pick a glyph's style.
 */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]|(?![\uFE00-\uFE0F])\p{Default_Ignorable_Code_Point}/u

/** The first hidden character of `text` as `U+XXXX`, or undefined when it has none. */
export function hiddenCharacter(text: string): string | undefined {
  const found = HIDDEN.exec(text)?.[0]
  const code = found?.codePointAt(0)
  if (code === undefined) return undefined
  return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`
}

const HIDDEN_ALL = new RegExp(HIDDEN.source, 'gu')

/**
 * `text` with every hidden character replaced by U+FFFD: for text someone wrote that is shown
 * as it was stored (a title quoted in the activity record, on a page or in a terminal).
 */
export function replaceHidden(text: string): string {
  return text.replace(HIDDEN_ALL, '\ufffd')
}
