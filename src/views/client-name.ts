import { hiddenCharacter } from '../platform/visible-text.js'

/**
 * The name a tool gave itself, as a page may show it: undefined (so the page says it is
 * unnamed) when it holds an invisible or format character. Names are refused with those at
 * registration; this covers names stored before that rule.
 */
export function shownClientName(name: string | undefined): string | undefined {
  return name === undefined || hiddenCharacter(name) !== undefined ? undefined : name
}
