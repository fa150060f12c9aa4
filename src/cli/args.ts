/** Command-line words and `--name value` / `--flag` options, parsed without guessing. */
export interface Args {
  readonly words: readonly string[]
  readonly options: Readonly<Record<string, string>>
  readonly lists: Readonly<Record<string, readonly string[]>>
}

/** Options that take no value. */
export const SWITCHES: ReadonlySet<string> = new Set([
  'confidential',
  'password-stdin',
  'help',
  'json',
])

export class UsageError extends Error {
  override name = 'UsageError'
}

export function parseArgs(argv: readonly string[]): Args {
  const words: string[] = []
  const options: Record<string, string> = {}
  const lists: Record<string, string[]> = {}
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? ''
    if (!arg.startsWith('--')) {
      words.push(arg)
      continue
    }
    const [name = '', inline] = arg.slice(2).split(/=(.*)/s, 2)
    let value: string
    if (SWITCHES.has(name)) value = inline ?? 'true'
    else if (inline !== undefined) value = inline
    else {
      const next = argv[i + 1]
      if (next === undefined || next.startsWith('--'))
        throw new UsageError(`--${name} needs a value`)
      value = next
      i++
    }
    options[name] = value
    const list = lists[name] ?? []
    list.push(value)
    lists[name] = list
  }
  return { words, options, lists }
}
