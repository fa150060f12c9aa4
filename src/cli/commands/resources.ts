import type { Config } from '../../config.js'
import { prepare } from '../../main.js'
import { addResourceServer } from '../../oauth/resource-servers.js'
import { type Args, UsageError } from '../args.js'
import { quietLogger } from './quiet-logger.js'

export async function resourcesAdd(args: Args, config: Config): Promise<number> {
  const { identifier, name } = args.options
  if (!identifier || !name)
    throw new UsageError('resources add needs --identifier URI and --name NAME')
  const deps = await prepare(config, { logger: quietLogger() })
  try {
    const { server, secret } = await addResourceServer(
      { ...deps, issuer: config.issuer },
      { identifier, name },
    )
    console.log(`identifier: ${server.identifier}`)
    console.log(`client_id: ${server.id}`)
    console.log(`client_secret: ${secret}\n(shown once: store it now; Portico keeps only its hash)`)
    return 0
  } finally {
    await deps.database.close()
  }
}

export async function resourcesList(_args: Args, config: Config): Promise<number> {
  const deps = await prepare(config, { logger: quietLogger() })
  try {
    const servers = await deps.resourceServers.list()
    if (servers.length === 0) console.log('no resource servers')
    for (const s of servers) console.log(`${s.id}  ${s.identifier}  ${s.name}`)
    return 0
  } finally {
    await deps.database.close()
  }
}

export async function resourcesDelete(args: Args, config: Config): Promise<number> {
  const id = args.words[2]
  if (!id) throw new UsageError('resources delete needs the resource server id (rs_…)')
  const deps = await prepare(config, { logger: quietLogger() })
  try {
    if (!(await deps.resourceServers.delete(id))) {
      console.error(`portico: no resource server ${id}`)
      return 1
    }
    console.log(`deleted ${id}`)
    return 0
  } finally {
    await deps.database.close()
  }
}
