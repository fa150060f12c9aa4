import { describe, expect, it } from 'vitest'
import { COMMANDS } from '../../src/cli/commands.js'
import { runCli } from '../support/cli.js'

// Nothing here may touch a database: a help or a usage error answers before configuration.
const ENV = { DATABASE_URL: 'sqlite:/nonexistent/never/portico.db' }

describe('portico --help and every command --help print usage and exit 0', () => {
  it.concurrent.for([['--help'], ['-h'], [], ['help']])('portico %s', async (args, { expect }) => {
    const result = await runCli(args, ENV)
    expect(result.code).toBe(0)
    expect(result.stderr).toBe('')
    expect(result.stdout).toMatch(/^usage: portico <command> \[options\]/)
    for (const command of COMMANDS) expect(result.stdout).toContain(command.name)
  })

  it.concurrent.for(COMMANDS.map((c) => c.name))('portico %s --help', async (name, { expect }) => {
    const result = await runCli([...name.split(' '), '--help'], ENV)
    expect(result.code).toBe(0)
    expect(result.stderr).toBe('')
    expect(result.stdout).toMatch(new RegExp(`^usage: portico ${name}\\b`))
  })

  it.concurrent.for(['keys', 'users', 'integrations', 'clients', 'resources', 'seed', 'grants'])(
    'portico %s --help lists the subcommands',
    async (noun, { expect }) => {
      const result = await runCli([noun, '--help'], ENV)
      expect(result.code).toBe(0)
      for (const command of COMMANDS.filter((c) => c.name.startsWith(`${noun} `)))
        expect(result.stdout).toContain(`portico ${command.usage}`)
    },
  )

  it('portico --version prints the package version', async () => {
    const result = await runCli(['--version'], ENV)
    expect(result.code).toBe(0)
    expect(result.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/)
  })
})

describe('a mistyped command or option names the closest match and exits 2', () => {
  it.concurrent.for<[string[], RegExp]>([
    [['serv'], /unknown command "serv"\nDid you mean "portico serve"\?/],
    [['migrat'], /Did you mean "portico migrate"\?/],
    [['keys', 'rotat'], /unknown command "keys rotat"\nDid you mean "portico keys rotate"\?/],
    [['user', 'list'], /Did you mean "portico users list"\?/],
    [['serve', '--prot', '3977'], /serve: unknown option --prot\nDid you mean --port\?/],
    [['serve', '--isuer=http://127.0.0.1:1'], /unknown option --isuer\nDid you mean --issuer\?/],
    [['users', 'list', '--jsno'], /users list: unknown option --jsno\nDid you mean --json\?/],
    [['--hlep'], /unknown option --hlep\nDid you mean --help\?/],
  ])('portico %s', async ([args, message], { expect }) => {
    const result = await runCli(args, ENV)
    expect(result.code).toBe(2)
    expect(result.stdout).toBe('')
    expect(result.stderr).toMatch(/^portico: /)
    expect(result.stderr).toMatch(message)
  })

  it.concurrent.for<[string[], RegExp]>([
    [['frobnicate'], /unknown command "frobnicate"\nRun portico --help/],
    [['keys'], /"keys" needs one of: keys rotate, keys list/],
    [['keys', 'frobnicate'], /"keys" takes: keys rotate, keys list/],
    [['serve', '--frobnicate'], /unknown option --frobnicate\nRun portico serve --help/],
    [['serve', '-x'], /unknown option -x/],
  ])('without a close match: portico %s', async ([args, message], { expect }) => {
    const result = await runCli(args, ENV)
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(message)
    expect(result.stderr).not.toMatch(/Did you mean/)
  })

  it('a value that looks like an option is still the value of the option before it', async () => {
    // --name takes a value; "--confidential" after it would be that value, so it is not
    // refused as unknown: the command itself then says the redirect URI is missing.
    const result = await runCli(['integrations', 'create', '--name', '-x'], ENV)
    expect(result.stderr).not.toMatch(/unknown option/)
  })
})
