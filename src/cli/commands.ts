import type { Config } from '../config.js'
import type { Args } from './args.js'
import {
  integrationsCreate,
  integrationsDelete,
  integrationsList,
} from './commands/integrations.js'
import { keysList, keysRotate } from './commands/keys.js'
import { migrateCommand } from './commands/migrate.js'
import { serve } from './commands/serve.js'

export interface Command {
  readonly name: string
  readonly usage: string
  readonly summary: string
  run(args: Args, config: Config): Promise<number>
}

export const COMMANDS: readonly Command[] = [
  {
    name: 'serve',
    usage: 'serve [--port N] [--host H] [--issuer URL] [--database-url URL] [--log-level L]',
    summary: 'start the server (migrates first)',
    run: serve,
  },
  {
    name: 'migrate',
    usage: 'migrate [--database-url URL]',
    summary: 'bring the database schema up to date',
    run: migrateCommand,
  },
  {
    name: 'keys rotate',
    usage: 'keys rotate',
    summary: 'add new active signing keys and retire the current ones',
    run: keysRotate,
  },
  {
    name: 'keys list',
    usage: 'keys list',
    summary: 'list the signing keys and their state',
    run: keysList,
  },
  {
    name: 'integrations create',
    usage:
      'integrations create --name NAME --redirect-uri https://… [--redirect-uri …] [--confidential]',
    summary:
      'register an integration with fixed callbacks; prints its client_id (and secret, once)',
    run: integrationsCreate,
  },
  {
    name: 'integrations list',
    usage: 'integrations list [--json]',
    summary: 'list registered integrations',
    run: integrationsList,
  },
  {
    name: 'integrations delete',
    usage: 'integrations delete CLIENT_ID',
    summary: 'delete an integration',
    run: integrationsDelete,
  },
]

export function printHelp(command?: Command): void {
  if (command) {
    console.log(`usage: portico ${command.usage}\n\n${command.summary}`)
    return
  }
  console.log('usage: portico <command> [options]\n\ncommands:')
  for (const c of COMMANDS) console.log(`  ${c.name.padEnd(22)} ${c.summary}`)
  console.log(
    '\nConfiguration comes from the environment (PORTICO_ISSUER, HOST, PORT, DATABASE_URL, LOG_LEVEL, …); see README.md.',
  )
}
