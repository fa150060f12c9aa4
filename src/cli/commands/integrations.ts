import type { Config } from '../../config.js'
import { prepare } from '../../main.js'
import { clientIdUrlProblem } from '../../oauth/client-id-metadata/client-id-url.js'
import { trustDocument } from '../../oauth/client-id-metadata/trust-document.js'
import { createIntegration } from '../../oauth/registration/register-client.js'
import { type Args, UsageError } from '../args.js'
import { quietLogger } from './quiet-logger.js'

export async function integrationsCreate(args: Args, config: Config): Promise<number> {
  const name = args.options.name
  const redirectUris = args.lists['redirect-uri'] ?? []
  if (!name || redirectUris.length === 0)
    throw new UsageError('integrations create needs --name and at least one --redirect-uri')
  const deps = await prepare(config, { logger: quietLogger() })
  try {
    const { client, clientSecret } = await createIntegration(deps, {
      name,
      redirectUris,
      confidential: args.options.confidential === 'true',
    })
    console.log(`client_id: ${client.clientId}`)
    if (clientSecret)
      console.log(
        `client_secret: ${clientSecret}\n(shown once: store it now; Portico keeps only its hash)`,
      )
    return 0
  } finally {
    await deps.database.close()
  }
}

export async function integrationsList(args: Args, config: Config): Promise<number> {
  const deps = await prepare(config, { logger: quietLogger() })
  try {
    const clients = await deps.clients.list('integration')
    const trusted = await deps.trustedClientDocuments.list()
    if (args.options.json) {
      const rows = [
        ...clients.map((c) => ({
          client_id: c.clientId,
          name: c.clientName,
          redirect_uris: c.redirectUris,
          token_endpoint_auth_method: c.tokenEndpointAuthMethod,
          created_at: new Date(c.createdAt).toISOString(),
        })),
        // Client ID Metadata Documents an operator reviewed: the URL is the client_id.
        ...trusted.map((t) => ({
          client_id: t.url,
          trusted_metadata_document: true,
          created_at: new Date(t.createdAt).toISOString(),
        })),
      ]
      console.log(JSON.stringify(rows, null, 2))
      return 0
    }
    if (clients.length === 0 && trusted.length === 0) console.log('no integrations')
    for (const c of clients) {
      const kind = c.tokenEndpointAuthMethod === 'none' ? 'public' : 'confidential'
      console.log(`${c.clientId}  ${c.clientName ?? ''}  (${kind})  ${c.redirectUris.join(' ')}`)
    }
    for (const t of trusted) console.log(`${t.url}  (trusted metadata document)`)
    return 0
  } finally {
    await deps.database.close()
  }
}

export async function integrationsDelete(args: Args, config: Config): Promise<number> {
  const clientId = args.words[2]
  if (!clientId) throw new UsageError('integrations delete needs a CLIENT_ID')
  const deps = await prepare(config, { logger: quietLogger() })
  try {
    if (!(await deps.clients.delete(clientId, 'integration'))) {
      console.error(`portico: no integration with client_id ${clientId}`)
      return 1
    }
    console.log(`deleted ${clientId}`)
    return 0
  } finally {
    await deps.database.close()
  }
}

/**
 * Marks a Client ID Metadata Document URL as a reviewed integration: its https callbacks
 * become valid and the consent page drops the "not reviewed" warning.
 */
export async function integrationsTrust(args: Args, config: Config): Promise<number> {
  const url = args.words[2]
  if (!url) throw new UsageError('integrations trust needs the URL of a client metadata document')
  // Judged as written before anything opens: a URL that cannot be a client_id is refused.
  const problem = clientIdUrlProblem(url)
  if (problem) {
    console.error(`portico: ${problem}`)
    return 1
  }
  const deps = await prepare(config, { logger: quietLogger() })
  try {
    const outcome = await trustDocument(deps.trustedClientDocuments, url, deps.clock.now())
    if (outcome.problem !== undefined) {
      console.error(`portico: ${outcome.problem}`)
      return 1
    }
    console.log(outcome.added ? `trusted ${url}` : `${url} was already trusted`)
    return 0
  } finally {
    await deps.database.close()
  }
}

/** Stops trusting a metadata document URL; its https callbacks are refused from then on. */
export async function integrationsUntrust(args: Args, config: Config): Promise<number> {
  const url = args.words[2]
  if (!url) throw new UsageError('integrations untrust needs the URL of a client metadata document')
  const deps = await prepare(config, { logger: quietLogger() })
  try {
    if (!(await deps.trustedClientDocuments.untrust(url))) {
      console.error(`portico: ${url} is not trusted`)
      return 1
    }
    console.log(`no longer trusted: ${url}`)
    return 0
  } finally {
    await deps.database.close()
  }
}
