import type { Config } from '../config.js'
import type { Args } from './args.js'

/**
 * A command whose module loads only when it runs: `--help`, `--version` and a typo answer
 * without loading the server, and each command loads only what it uses.
 */
function lazy(load: () => Promise<Command['run']>): Command['run'] {
  return async (args, config) => (await load())(args, config)
}

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
    run: lazy(async () => (await import('./commands/serve.js')).serve),
  },
  {
    name: 'openapi',
    usage: 'openapi [--issuer URL]',
    summary: 'print the OpenAPI document (npm run openapi writes openapi.json)',
    run: lazy(async () => (await import('./commands/openapi.js')).openapiCommand),
  },
  {
    name: 'seed demo',
    usage: 'seed demo [--database-url URL]',
    summary: 'load the demo school into an empty database (dates relative to today)',
    run: lazy(async () => (await import('./commands/seed.js')).seedDemoCommand),
  },
  {
    name: 'migrate',
    usage: 'migrate [--database-url URL]',
    summary: 'bring the database schema up to date',
    run: lazy(async () => (await import('./commands/migrate.js')).migrateCommand),
  },
  {
    name: 'keys rotate',
    usage: 'keys rotate',
    summary: 'add new active signing keys and retire the current ones',
    run: lazy(async () => (await import('./commands/keys.js')).keysRotate),
  },
  {
    name: 'keys list',
    usage: 'keys list',
    summary: 'list the signing keys and their state',
    run: lazy(async () => (await import('./commands/keys.js')).keysList),
  },
  {
    name: 'integrations create',
    usage:
      'integrations create --name NAME --redirect-uri https://… [--redirect-uri …] [--confidential]',
    summary:
      'register an integration with fixed callbacks; prints its client_id (and secret, once)',
    run: lazy(async () => (await import('./commands/integrations.js')).integrationsCreate),
  },
  {
    name: 'integrations list',
    usage: 'integrations list [--json]',
    summary: 'list registered integrations',
    run: lazy(async () => (await import('./commands/integrations.js')).integrationsList),
  },
  {
    name: 'integrations delete',
    usage: 'integrations delete CLIENT_ID',
    summary: 'delete an integration',
    run: lazy(async () => (await import('./commands/integrations.js')).integrationsDelete),
  },
  {
    name: 'integrations trust',
    usage: 'integrations trust https://…/client.json',
    summary:
      'trust a client metadata document URL: its https callbacks become valid, no "not reviewed" warning',
    run: lazy(async () => (await import('./commands/integrations.js')).integrationsTrust),
  },
  {
    name: 'integrations untrust',
    usage: 'integrations untrust https://…/client.json',
    summary: 'stop trusting a client metadata document URL',
    run: lazy(async () => (await import('./commands/integrations.js')).integrationsUntrust),
  },
  {
    name: 'users add',
    usage: 'users add --email E --name N --role R --password-stdin',
    summary: 'add an account; the password is read from standard input',
    run: lazy(async () => (await import('./commands/users.js')).usersAdd),
  },
  {
    name: 'users set-password',
    usage: 'users set-password --email E --password-stdin',
    summary: 'set a new password (read from standard input) and sign the account out',
    run: lazy(async () => (await import('./commands/users.js')).usersSetPassword),
  },
  {
    name: 'users list',
    usage: 'users list [--json]',
    summary: 'list the accounts and their roles',
    run: lazy(async () => (await import('./commands/users.js')).usersList),
  },
  {
    name: 'clients list',
    usage: 'clients list [--json]',
    summary: 'list every client, self-registered and integrations',
    run: lazy(async () => (await import('./commands/clients.js')).clientsList),
  },
  {
    name: 'clients show',
    usage: 'clients show CLIENT_ID',
    summary: 'show a client and who authorized it',
    run: lazy(async () => (await import('./commands/clients.js')).clientsShow),
  },
  {
    name: 'clients delete',
    usage: 'clients delete CLIENT_ID',
    summary: 'delete a client, ending all its grants and tokens',
    run: lazy(async () => (await import('./commands/clients.js')).clientsDelete),
  },
  {
    name: 'grants revoke',
    usage: 'grants revoke [--client CLIENT_ID] [--user EMAIL]',
    summary: 'revoke grants (and their tokens) of a client, a person, or both',
    run: lazy(async () => (await import('./commands/clients.js')).grantsRevoke),
  },
  {
    name: 'activity',
    usage:
      'activity [--client CLIENT_ID] [--person USER_ID] [--since 7d|RFC3339] [--limit N] [--json]',
    summary: 'what apps changed with their tokens, newest first (the activity record)',
    run: lazy(async () => (await import('./commands/activity.js')).activityCommand),
  },
  {
    name: 'approvals policy',
    usage: 'approvals policy [OPERATION [none|person|owner|default]] [--json]',
    summary:
      'which writes made with a token wait for a yes, and from whom; change one (recorded in the activity record)',
    run: lazy(async () => (await import('./commands/approvals.js')).approvalsPolicy),
  },
  {
    name: 'resources add',
    usage: 'resources add --identifier URI --name NAME',
    summary: 'register another API behind Portico; prints its introspection credentials once',
    run: lazy(async () => (await import('./commands/resources.js')).resourcesAdd),
  },
  {
    name: 'resources list',
    usage: 'resources list',
    summary: 'list registered resource servers',
    run: lazy(async () => (await import('./commands/resources.js')).resourcesList),
  },
  {
    name: 'resources delete',
    usage: 'resources delete RS_ID',
    summary: 'delete a resource server',
    run: lazy(async () => (await import('./commands/resources.js')).resourcesDelete),
  },
]

/** Flags every command takes, because each reads the configuration (README: Configuration). */
export const CONFIG_FLAGS = ['issuer', 'host', 'port', 'database-url', 'log-level'] as const

/** The options a command accepts: those of its usage line, the configuration's, and --help. */
export function optionsOf(command: Command): readonly string[] {
  const own = [...command.usage.matchAll(/--([a-z][a-z-]*)/g)].map(([, name]) => name ?? '')
  return [...new Set([...own, ...CONFIG_FLAGS, 'help'])]
}

/** Commands whose first word is `noun` (`keys` → `keys list`, `keys rotate`). */
export function commandsOf(noun: string): readonly Command[] {
  return COMMANDS.filter((c) => c.name.split(' ')[0] === noun)
}

export function printHelp(command?: Command): void {
  if (command) {
    console.log(
      `usage: portico ${command.usage}\n\n${command.summary}\n\n` +
        `Every command also takes the configuration flags ${CONFIG_FLAGS.map((f) => `--${f}`).join(', ')}\n` +
        'and reads the environment (README.md: Configuration).',
    )
    return
  }
  console.log('usage: portico <command> [options]\n\ncommands:')
  for (const c of COMMANDS) console.log(`  ${c.name.padEnd(22)} ${c.summary}`)
  console.log(
    "\n`portico <command> --help` shows a command's options; `portico --version` the version." +
      '\nConfiguration comes from the environment (PORTICO_ISSUER, HOST, PORT, DATABASE_URL, LOG_LEVEL, …); see README.md.',
  )
}

/** The usage of every command under one noun, for `portico keys --help`. */
export function printGroupHelp(noun: string): void {
  console.log(
    `usage:\n${commandsOf(noun)
      .map((c) => `  portico ${c.usage}\n      ${c.summary}`)
      .join('\n')}`,
  )
}
