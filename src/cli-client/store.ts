import {
  chmodSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { homedir } from 'node:os'
import path from 'node:path'
import { CliError } from './http.js'

/** portico-cli's registration at one server (RFC 7591), made once and remembered. */
export interface Registration {
  readonly clientId: string
  readonly redirectUri: string
  readonly registeredAt: string
}

/** The signed-in state: whose tokens, from which server, and where to use them. */
export interface Session {
  /** The issuer, exactly as its metadata states it. */
  readonly server: string
  readonly clientId: string
  readonly scope: string
  readonly accessToken: string
  readonly refreshToken: string | undefined
  /** Epoch milliseconds; undefined when the server did not say (RFC 6749 §5.1). */
  readonly expiresAt: number | undefined
  /** Lifetime the server gave, in seconds, to decide how early to refresh. */
  readonly expiresIn: number | undefined
  readonly endpoints: {
    readonly token: string
    readonly userinfo: string | undefined
    readonly revocation: string | undefined
  }
}

/**
 * The configuration directory: `$PORTICO_CLI_CONFIG_DIR`, else
 * `$XDG_CONFIG_HOME/portico-cli` (when absolute, as the XDG spec requires), else
 * `~/.config/portico-cli`.
 */
export function configDirectory(env: NodeJS.ProcessEnv): string {
  if (env.PORTICO_CLI_CONFIG_DIR) return path.resolve(env.PORTICO_CLI_CONFIG_DIR)
  const xdg = env.XDG_CONFIG_HOME
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(env.HOME || homedir(), '.config')
  return path.join(base, 'portico-cli')
}

/**
 * Tokens and registrations on disk: a directory only its owner can enter (0700), files only
 * its owner can read (0600), each written whole by rename so a crash never leaves half a file.
 */
export interface Store {
  readonly directory: string
  registration(server: string): Registration | undefined
  saveRegistration(server: string, registration: Registration): void
  forgetRegistration(server: string): void
  session(): Session | undefined
  saveSession(session: Session): void
  forgetSession(): void
}

export function createStore(directory: string): Store {
  const clientsFile = path.join(directory, 'clients.json')
  const sessionFile = path.join(directory, 'session.json')

  const read = <T>(file: string): T | undefined => {
    let text: string
    try {
      text = readFileSync(file, 'utf8')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
      throw new CliError(`cannot read ${file}: ${(error as Error).message}`)
    }
    try {
      return JSON.parse(text) as T
    } catch {
      throw new CliError(`${file} is damaged (not JSON); delete it and log in again`)
    }
  }

  const write = (file: string, value: unknown) => {
    mkdirSync(directory, { recursive: true, mode: 0o700 })
    if ((statSync(directory).mode & 0o077) !== 0) chmodSync(directory, 0o700)
    const temporary = `${file}.${process.pid}.tmp`
    writeFileSync(temporary, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 })
    chmodSync(temporary, 0o600)
    renameSync(temporary, file)
  }

  const clients = () => read<Record<string, Registration>>(clientsFile) ?? {}

  return {
    directory,
    registration: (server) => clients()[server],
    saveRegistration(server, registration) {
      write(clientsFile, { ...clients(), [server]: registration })
    },
    forgetRegistration(server) {
      const { [server]: _forgotten, ...rest } = clients()
      write(clientsFile, rest)
    },
    session: () => read<Session>(sessionFile),
    saveSession: (session) => write(sessionFile, session),
    forgetSession: () => rmSync(sessionFile, { force: true }),
  }
}
