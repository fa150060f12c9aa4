#!/usr/bin/env node
import { callApi, logout, type Output, printToken, whoami } from './commands.js'
import { CliError, EXIT } from './http.js'
import { DEFAULT_SCOPE, login } from './login.js'
import { configDirectory, createStore } from './store.js'

const USAGE = `portico-cli: sign in to a Portico school and use its API from the command line

  portico-cli login --server URL [--scope "openid profile …"] [--client-id-url URL]
      sign in with the browser; the tokens are kept in $XDG_CONFIG_HOME/portico-cli
      (default scope: ${DEFAULT_SCOPE}); with --client-id-url, identify by that
      https client ID metadata document (listing http://127.0.0.1/callback) instead of
      registering
  portico-cli whoami                        who you are signed in as, where, with which scopes
  portico-cli token                         print a valid access token (refreshed when needed)
  portico-cli api METHOD PATH [--data JSON|@file|@-]
                                            call the API, e.g. api GET /api/v1/account
  portico-cli logout [--local]              revoke the refresh token and forget the tokens

Exit codes: 0 done, 1 failed, 2 usage error, 3 not logged in (run login).
Environment: PORTICO_CLI_CONFIG_DIR (where tokens are kept), PORTICO_CLI_BROWSER (a command
that opens a URL, instead of xdg-open / open).`

const VALUE_OPTIONS = new Set(['server', 'scope', 'data', 'client-id-url'])
const SWITCHES = new Set(['local', 'help'])

interface Parsed {
  readonly words: string[]
  readonly options: Record<string, string>
}

function parse(argv: readonly string[]): Parsed {
  const words: string[] = []
  const options: Record<string, string> = {}
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? ''
    if (arg === '-h') {
      options.help = 'true'
      continue
    }
    if (!arg.startsWith('--')) {
      words.push(arg)
      continue
    }
    const [name = '', inline] = arg.slice(2).split(/=(.*)/s, 2)
    if (SWITCHES.has(name)) options[name] = 'true'
    else if (VALUE_OPTIONS.has(name)) {
      const value = inline ?? argv[++i]
      if (value === undefined) throw new CliError(`--${name} needs a value`, EXIT.usage)
      options[name] = value
    } else throw new CliError(`unknown option --${name}`, EXIT.usage)
  }
  return { words, options }
}

async function main(argv: readonly string[], out: Output): Promise<number> {
  const { words, options } = parse(argv)
  const [command, ...rest] = words
  if (options.help || command === undefined || command === 'help') {
    out.print(USAGE)
    return command === undefined && !options.help ? EXIT.usage : EXIT.ok
  }
  const expect = (count: number, usage: string) => {
    if (rest.length !== count) throw new CliError(`usage: portico-cli ${usage}`, EXIT.usage)
  }
  const store = createStore(configDirectory(process.env))
  switch (command) {
    case 'login': {
      expect(0, 'login --server URL [--scope "…"] [--client-id-url URL]')
      if (!options.server) throw new CliError('login needs --server URL', EXIT.usage)
      const session = await login({
        server: options.server,
        scope: options.scope ?? DEFAULT_SCOPE,
        store,
        env: process.env,
        say: out.say,
        clientIdUrl: options['client-id-url'],
      })
      out.say(`Logged in to ${session.server} with scopes: ${session.scope}`)
      return EXIT.ok
    }
    case 'whoami':
      expect(0, 'whoami')
      return whoami(store, out)
    case 'token':
      expect(0, 'token')
      return printToken(store, out)
    case 'api':
      expect(2, 'api METHOD PATH [--data JSON|@file|@-]')
      return callApi(store, rest[0] ?? '', rest[1] ?? '', options.data, out)
    case 'logout':
      expect(0, 'logout [--local]')
      return logout(store, options.local === 'true', out)
    default:
      throw new CliError(`unknown command "${command}"; see portico-cli --help`, EXIT.usage)
  }
}

const output: Output = {
  print: (text) => process.stdout.write(`${text}\n`),
  say: (text) => process.stderr.write(`${text}\n`),
}

main(process.argv.slice(2), output).then(
  (code) => {
    process.exitCode = code
  },
  (error: unknown) => {
    if (error instanceof CliError) {
      output.say(`portico-cli: ${error.message}`)
      process.exitCode = error.exitCode
    } else {
      output.say(`portico-cli: ${error instanceof Error ? error.message : String(error)}`)
      process.exitCode = EXIT.failed
    }
  },
)
