#!/usr/bin/env node
import { readFileSync } from 'node:fs'
import { ConfigError, parseConfig } from '../config.js'
import { OAuthError } from '../oauth/errors.js'
import { parseArgs, SWITCHES, UsageError } from './args.js'
import {
  COMMANDS,
  type Command,
  commandsOf,
  optionsOf,
  printGroupHelp,
  printHelp,
} from './commands.js'
import { closestMatch } from './did-you-mean.js'

/** `portico <noun> [verb] [--options]`: the operator's command line. */
async function main(argv: readonly string[]): Promise<number> {
  // The command is the leading words, before any option.
  const firstOption = argv.findIndex((arg) => arg.startsWith('-'))
  const leading = firstOption === -1 ? argv : argv.slice(0, firstOption)
  const wantsHelp = argv.some((arg) => arg === '--help' || arg === '-h')
  if (leading.length === 0) {
    if (argv.includes('--version')) {
      console.log(packageVersion())
      return 0
    }
    if (argv.length > 0 && !wantsHelp) {
      return usageError(
        `unknown option ${argv[0]}`,
        suggest(optionName(argv[0] ?? ''), ['help', 'version'], '--'),
      )
    }
    printHelp()
    return 0
  }
  if (leading[0] === 'help') {
    const named = findCommand(leading.slice(1))
    if (named) printHelp(named)
    else if (leading[1] && commandsOf(leading[1]).length > 0) printGroupHelp(leading[1])
    else printHelp()
    return 0
  }
  const command = findCommand(leading)
  if (!command) {
    const noun = leading[0] ?? ''
    const group = commandsOf(noun)
    const names = group.map((c) => c.name).join(', ')
    if (group.length > 0 && leading.length === 1) {
      if (wantsHelp) {
        printGroupHelp(noun)
        return 0
      }
      return usageError(
        `"${noun}" needs one of: ${names}`,
        `Run portico ${noun} --help for their options.`,
      )
    }
    // `keys rotat`, `user list`: the two words first; `serv`: the one.
    const all = COMMANDS.map((c) => c.name)
    const two = leading.slice(0, 2).join(' ')
    const match =
      (leading.length > 1 ? closestMatch(two, all) : undefined) ?? closestMatch(noun, all)
    const typed = group.length > 0 || (match?.includes(' ') ?? false) ? two : noun
    return usageError(
      `unknown command "${typed}"`,
      match
        ? `Did you mean "portico ${match}"?`
        : group.length > 0
          ? `"${noun}" takes: ${names}.`
          : 'Run portico --help for the list of commands.',
    )
  }
  const known = optionsOf(command)
  const rest = argv.slice(leading.length)
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i] ?? ''
    if (arg === '-h' || !arg.startsWith('-')) continue
    const name = optionName(arg)
    if (arg.startsWith('--') && known.includes(name)) {
      // `--name value`: the value is not an option, whatever it looks like.
      if (!SWITCHES.has(name) && !arg.includes('=')) i++
      continue
    }
    return usageError(
      `${command.name}: unknown option ${arg.split('=')[0]}`,
      suggest(name, known, '--') ?? `Run portico ${command.name} --help for its options.`,
    )
  }
  if (wantsHelp) {
    printHelp(command)
    return 0
  }
  const args = parseArgs(argv)
  const config = parseConfig(process.env, args.options)
  return command.run(args, config)
}

function findCommand(words: readonly string[]): Command | undefined {
  const two = words.slice(0, 2).join(' ')
  return COMMANDS.find((c) => c.name === two) ?? COMMANDS.find((c) => c.name === words[0])
}

function optionName(arg: string): string {
  return (arg.replace(/^-+/, '').split('=')[0] ?? '').toLowerCase()
}

function suggest(typed: string, candidates: readonly string[], prefix: string): string | undefined {
  const match = closestMatch(typed, candidates)
  return match ? `Did you mean ${prefix}${match}?` : undefined
}

/** A usage mistake: what was wrong and the closest fix, on standard error; exit code 2. */
function usageError(message: string, hint: string | undefined): number {
  console.error(`portico: ${message}${hint ? `\n${hint}` : ''}`)
  return 2
}

function packageVersion(): string {
  const file = new URL('../../package.json', import.meta.url)
  const { version } = JSON.parse(readFileSync(file, 'utf8')) as { version?: unknown }
  return typeof version === 'string' ? version : 'unknown'
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
  },
  (error: unknown) => {
    if (error instanceof ConfigError || error instanceof UsageError) {
      console.error(`portico: ${error.message}`)
      process.exitCode = 2
    } else if (error instanceof OAuthError) {
      console.error(`portico: ${error.error}: ${error.description}`)
      process.exitCode = 1
    } else {
      console.error(`portico: ${error instanceof Error ? error.message : String(error)}`)
      process.exitCode = 1
    }
  },
)
