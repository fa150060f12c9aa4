#!/usr/bin/env node
import { ConfigError, parseConfig } from '../config.js'
import { OAuthError } from '../oauth/errors.js'
import { parseArgs, UsageError } from './args.js'
import { COMMANDS, printHelp } from './commands.js'

/** `portico <noun> [verb] [--options]`: the operator's command line. */
async function main(argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv)
  const key = args.words.slice(0, 2).join(' ')
  const command =
    COMMANDS.find((c) => c.name === key) ?? COMMANDS.find((c) => c.name === args.words[0])
  if (!command || args.options.help) {
    printHelp(command)
    return command || args.options.help || args.words.length === 0 ? 0 : 2
  }
  const config = parseConfig(process.env, args.options)
  return command.run(args, config)
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
