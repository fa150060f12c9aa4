import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { exportJWK, generateKeyPair } from 'jose'
import Provider, { type Configuration, type KoaContextWithOIDC } from 'oidc-provider'
import { createMemoryAdapterFactory } from './memory-adapter.js'

/**
 * node-oidc-provider set up as close to Portico as it allows, for the benchmark only:
 * open dynamic registration of public native clients, authorization code with PKCE S256,
 * refresh tokens issued to every client registered for them and rotated at each use, opaque
 * access tokens, introspection and revocation, one RS256 key, an unbounded in-memory store,
 * and a sign-in and consent page of our own (what a deployment must write).
 *
 * Usage: node oidc-provider.js <port>, with BENCH_PERSON_EMAIL, BENCH_PERSON_PASSWORD and
 * BENCH_PERSON_NAME in the environment. Prints one JSON line {"listening": url} when ready.
 */

const port = Number(process.argv[2])
if (!Number.isInteger(port) || port <= 0) throw new Error('usage: oidc-provider.js <port>')
const issuer = `http://127.0.0.1:${port}`

const person = {
  id: 'usr_bench_person',
  email: process.env.BENCH_PERSON_EMAIL ?? 'bench@school.invalid',
  password: process.env.BENCH_PERSON_PASSWORD ?? randomBytes(16).toString('hex'),
  name: process.env.BENCH_PERSON_NAME ?? 'Bench Person',
  updatedAt: Math.floor(Date.now() / 1000),
}

const { privateKey } = await generateKeyPair('RS256', { modulusLength: 2048, extractable: true })
const jwk = await exportJWK(privateKey)

const configuration: Configuration = {
  adapter: createMemoryAdapterFactory(),
  jwks: { keys: [{ ...jwk, alg: 'RS256', use: 'sig', kid: 'bench-rs256' }] },
  cookies: { keys: [randomBytes(32).toString('base64url')] },
  features: {
    devInteractions: { enabled: false },
    registration: { enabled: true, initialAccessToken: false, issueRegistrationAccessToken: false },
    introspection: { enabled: true },
    revocation: { enabled: true },
    userinfo: { enabled: true },
  },
  clientDefaults: {
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    id_token_signed_response_alg: 'RS256',
  },
  responseTypes: ['code'],
  // PKCE for every client; oidc-provider 9 accepts only S256.
  pkce: { required: () => true },
  // Portico issues a refresh token to every client registered for the grant, without
  // offline_access, rotates it at every use, and does not end tokens with the sign-in session.
  issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
  rotateRefreshToken: () => true,
  expiresWithSession: async () => false,
  scopes: ['openid', 'offline_access', 'profile', 'email'],
  claims: {
    openid: ['sub'],
    profile: ['name', 'preferred_username', 'updated_at'],
    email: ['email', 'email_verified'],
  },
  ttl: {
    AccessToken: 3600,
    AuthorizationCode: 60,
    IdToken: 3600,
    RefreshToken: 30 * 86400,
    Grant: 30 * 86400,
    Session: 12 * 3600,
    Interaction: 600,
  },
  async findAccount(_ctx: KoaContextWithOIDC, sub: string) {
    if (sub !== person.id) return undefined
    return {
      accountId: sub,
      async claims() {
        return {
          sub,
          name: person.name,
          preferred_username: person.email,
          updated_at: person.updatedAt,
          email: person.email,
          email_verified: true,
        }
      },
    }
  },
  interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
}

const provider = new Provider(issuer, configuration)
const callback = provider.callback()

const server = createServer((request, response) => {
  if (request.url?.startsWith('/interaction/')) {
    interaction(request, response).catch((error: unknown) => {
      if (!response.headersSent) {
        response.writeHead(500, { 'content-type': 'text/plain' })
        response.end(String(error))
      }
    })
    return
  }
  void callback(request, response)
})

/** The sign-in and consent pages oidc-provider leaves to the deployment. */
async function interaction(request: IncomingMessage, response: ServerResponse): Promise<void> {
  const [, , uid, action] = (request.url ?? '').split('?')[0]?.split('/') ?? []
  const details = await provider.interactionDetails(request, response)
  if (uid !== details.uid) return send(response, 400, 'text/plain', 'interaction mismatch')
  const prompt = details.prompt.name

  if (request.method === 'GET' && action === undefined) {
    const client = await provider.Client.find(String(details.params.client_id))
    const scopes = String(details.params.scope ?? '').split(' ')
    const title = prompt === 'login' ? 'Sign in' : `Allow ${client?.clientName ?? 'this tool'}?`
    const form =
      prompt === 'login'
        ? `<form method="post" action="/interaction/${uid}/login"><input name="email"><input name="password" type="password"><button>Sign in</button></form>`
        : `<ul>${scopes.map((s) => `<li>${escapeHtml(s)}</li>`).join('')}</ul><form method="post" action="/interaction/${uid}/confirm"><button>Allow</button></form>`
    return send(
      response,
      200,
      'text/html; charset=utf-8',
      `<!doctype html><title>${escapeHtml(title)}</title><main data-prompt="${prompt}"><h1>${escapeHtml(title)}</h1>${form}</main>`,
    )
  }
  if (request.method !== 'POST') return send(response, 405, 'text/plain', 'method not allowed')
  const form = new URLSearchParams(await readBody(request))

  if (action === 'login' && prompt === 'login') {
    const email = form.get('email') ?? ''
    const password = form.get('password') ?? ''
    if (email !== person.email || !sameSecret(password, person.password)) {
      return send(response, 401, 'text/plain', 'wrong e-mail address or password')
    }
    return provider.interactionFinished(request, response, { login: { accountId: person.id } })
  }
  if (action === 'confirm' && prompt === 'consent') {
    const { accountId } = details.session ?? {}
    const clientId = String(details.params.client_id)
    const grant =
      (details.grantId ? await provider.Grant.find(details.grantId) : undefined) ??
      new provider.Grant({ accountId, clientId })
    const missing = details.prompt.details.missingOIDCScope
    if (Array.isArray(missing)) grant.addOIDCScope(missing.join(' '))
    const grantId = await grant.save()
    return provider.interactionFinished(
      request,
      response,
      { consent: { grantId } },
      { mergeWithLastSubmission: true },
    )
  }
  return send(response, 400, 'text/plain', `nothing to ${action} at the ${prompt} prompt`)
}

function send(response: ServerResponse, status: number, type: string, body: string): void {
  response.writeHead(status, {
    'content-type': type,
    'cache-control': 'no-store',
    'content-length': Buffer.byteLength(body),
  })
  response.end(body)
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

function sameSecret(a: string, b: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s).digest()
  return timingSafeEqual(digest(a), digest(b))
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of request) {
    size += (chunk as Buffer).length
    if (size > 64 * 1024) throw new Error('body too large')
    chunks.push(chunk as Buffer)
  }
  return Buffer.concat(chunks).toString('utf8')
}

server.listen(port, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ listening: issuer })}\n`)
})
const stop = () => server.close(() => process.exit(0))
process.once('SIGTERM', stop)
process.once('SIGINT', stop)
