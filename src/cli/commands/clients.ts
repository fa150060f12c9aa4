import type { Config } from '../../config.js'
import { prepare } from '../../main.js'
import { listConnections, revokeGrants } from '../../oauth/connections.js'
import { type Args, UsageError } from '../args.js'
import { quietLogger } from './quiet-logger.js'

const iso = (ms: number | undefined) => (ms === undefined ? 'never' : new Date(ms).toISOString())

export async function clientsList(args: Args, config: Config): Promise<number> {
  const deps = await prepare(config, { logger: quietLogger() })
  try {
    const clients = await deps.clients.list()
    if (args.options.json) {
      console.log(
        JSON.stringify(
          clients.map((c) => ({
            client_id: c.clientId,
            name: c.clientName,
            kind: c.kind,
            created_at: iso(c.createdAt),
            // Machine-readable: a client never used is null, as in `users list --json`.
            last_used_at: c.lastUsedAt === undefined ? null : iso(c.lastUsedAt),
          })),
          null,
          2,
        ),
      )
      return 0
    }
    if (clients.length === 0) console.log('no clients')
    for (const c of clients)
      console.log(
        `${c.clientId}  ${c.kind.padEnd(15)}  ${c.clientName ?? '(unnamed)'}  last used ${iso(c.lastUsedAt)}`,
      )
    return 0
  } finally {
    await deps.database.close()
  }
}

export async function clientsShow(args: Args, config: Config): Promise<number> {
  const clientId = args.words[2]
  if (!clientId) throw new UsageError('clients show needs a CLIENT_ID')
  const deps = await prepare(config, { logger: quietLogger() })
  try {
    const client = await deps.clients.find(clientId)
    if (!client) {
      console.error(`portico: no client ${clientId}`)
      return 1
    }
    const connections = (await listConnections(deps.grants, deps.clock.now())).filter(
      (c) => c.clientId === clientId,
    )
    console.log(`client_id: ${client.clientId}`)
    console.log(`name: ${client.clientName ?? '(unnamed)'}`)
    console.log(`kind: ${client.kind}`)
    console.log(`token_endpoint_auth_method: ${client.tokenEndpointAuthMethod}`)
    console.log(`redirect_uris: ${client.redirectUris.join(' ')}`)
    console.log(`grant_types: ${client.grantTypes.join(' ')}`)
    console.log(`created_at: ${iso(client.createdAt)}`)
    console.log(`last_used_at: ${iso(client.lastUsedAt)}`)
    console.log(
      `authorized by: ${connections.length === 0 ? 'nobody' : connections.map((c) => `${c.userEmail} (${c.scopes.join(' ')})`).join(', ')}`,
    )
    return 0
  } finally {
    await deps.database.close()
  }
}

export async function clientsDelete(args: Args, config: Config): Promise<number> {
  const clientId = args.words[2]
  if (!clientId) throw new UsageError('clients delete needs a CLIENT_ID')
  const deps = await prepare(config, { logger: quietLogger() })
  try {
    // Grants end first, so no token of the client outlives it even for a moment.
    await revokeGrants(deps.grants, { clientId }, deps.clock.now())
    if (!(await deps.clients.delete(clientId))) {
      console.error(`portico: no client ${clientId}`)
      return 1
    }
    console.log(`deleted ${clientId} and every grant and token it held`)
    return 0
  } finally {
    await deps.database.close()
  }
}

export async function grantsRevoke(args: Args, config: Config): Promise<number> {
  const clientId = args.options.client
  const email = args.options.user
  if (!clientId && !email)
    throw new UsageError('grants revoke needs --client CLIENT_ID and/or --user EMAIL')
  const deps = await prepare(config, { logger: quietLogger() })
  try {
    let userId: string | undefined
    if (email) {
      const found = await deps.users.findCredentials(email)
      if (!found) {
        console.error(`portico: no account with e-mail ${email}`)
        return 1
      }
      userId = found.user.id
    }
    const count = await revokeGrants(deps.grants, { clientId, userId }, deps.clock.now())
    console.log(`revoked ${count} grant${count === 1 ? '' : 's'}`)
    return 0
  } finally {
    await deps.database.close()
  }
}
