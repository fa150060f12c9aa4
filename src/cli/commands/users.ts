import type { Config } from '../../config.js'
import { prepare } from '../../main.js'
import {
  AccountError,
  addAccount,
  checkNewAccount,
  setAccountPassword,
} from '../../people/account-admin.js'
import { checkNewPassword } from '../../platform/passwords.js'
import { type Args, UsageError } from '../args.js'
import { quietLogger } from './quiet-logger.js'

export async function usersAdd(args: Args, config: Config): Promise<number> {
  const { email, name, role } = args.options
  if (!email || !name || !role || !args.options['password-stdin'])
    throw new UsageError('users add needs --email, --name, --role and --password-stdin')
  const password = await readPassword()
  const problem = checkNewAccount({ email, name, role, password })
  if (problem) throw new UsageError(problem)
  const deps = await prepare(config, { logger: quietLogger() })
  try {
    const user = await addAccount(deps, { email, name, role, password })
    console.log(`added ${user.id}  ${user.email}  (${user.role})`)
    return 0
  } catch (error) {
    return reportAccountError(error)
  } finally {
    await deps.database.close()
  }
}

export async function usersSetPassword(args: Args, config: Config): Promise<number> {
  const email = args.options.email
  if (!email || !args.options['password-stdin'])
    throw new UsageError('users set-password needs --email and --password-stdin')
  const password = await readPassword()
  const problem = checkNewPassword(password)
  if (problem) throw new UsageError(problem)
  const deps = await prepare(config, { logger: quietLogger() })
  try {
    const user = await setAccountPassword(deps, email, password)
    console.log(
      `new password set for ${user.email}; every session and every grant they held has ended`,
    )
    return 0
  } catch (error) {
    return reportAccountError(error)
  } finally {
    await deps.database.close()
  }
}

export async function usersList(args: Args, config: Config): Promise<number> {
  const deps = await prepare(config, { logger: quietLogger() })
  try {
    const users = await deps.users.list()
    if (args.options.json) {
      const rows = users.map((u) => ({
        id: u.id,
        email: u.email,
        name: u.name,
        role: u.role,
        created_at: new Date(u.createdAt).toISOString(),
        disabled_at: u.disabledAt === undefined ? null : new Date(u.disabledAt).toISOString(),
      }))
      console.log(JSON.stringify(rows, null, 2))
      return 0
    }
    if (users.length === 0) console.log('no accounts')
    for (const u of users) {
      const disabled = u.disabledAt === undefined ? '' : '  (disabled)'
      console.log(`${u.id}  ${u.email}  ${u.role}  ${u.name}${disabled}`)
    }
    return 0
  } finally {
    await deps.database.close()
  }
}

function reportAccountError(error: unknown): number {
  if (!(error instanceof AccountError)) throw error
  console.error(`portico: ${error.message}`)
  return 1
}

/**
 * The whole of standard input less one trailing newline (`echo` adds one). A terminal is
 * refused: it would echo the password as it is typed.
 */
async function readPassword(): Promise<string> {
  if (process.stdin.isTTY)
    throw new UsageError(
      '--password-stdin reads a pipe, e.g. printf %s "$PASSWORD" | portico users add …',
    )
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '')
}
