import { protectedResourceMetadata, serverMetadata } from '../oauth/discovery.js'
import { ALL_SCOPES } from '../oauth/scopes.js'
import { renderApiReference } from '../views/api-reference.js'
import type { RouteModule } from './deps.js'

export const JWKS_PATH = '/.well-known/jwks.json'

const METADATA_CACHE = 'public, max-age=300'

const jsonDocument = (summary: string, operationId: string) => ({
  get: {
    operationId,
    summary,
    tags: ['discovery'],
    responses: {
      '200': {
        description: summary,
        content: { 'application/json': { schema: { type: 'object' } } },
      },
    },
  },
})

/**
 * The discovery documents, the JWKS and the human documentation page. Documents are built
 * once at start from the issuer and the registered modules; the JWKS follows key rotation.
 */
export const discoveryRoutes: RouteModule = {
  advertises: { jwks_uri: JWKS_PATH },
  openapi: {
    '/.well-known/oauth-authorization-server': jsonDocument(
      'Authorization server metadata (RFC 8414)',
      'getAuthorizationServerMetadata',
    ),
    '/.well-known/openid-configuration': jsonDocument(
      'OpenID Connect Discovery 1.0 document',
      'getOpenidConfiguration',
    ),
    '/.well-known/oauth-protected-resource': jsonDocument(
      'Protected resource metadata (RFC 9728)',
      'getProtectedResourceMetadata',
    ),
    [JWKS_PATH]: jsonDocument('JSON Web Key Set of the signing keys (RFC 7517)', 'getJwks'),
    '/docs': {
      get: {
        operationId: 'getDocumentation',
        summary: 'Documentation for developers, as HTML',
        tags: ['discovery'],
        responses: {
          '200': {
            description: 'HTML page',
            content: { 'text/html': { schema: { type: 'string' } } },
          },
        },
      },
    },
  },
  register(app, deps, context) {
    const { issuer } = deps.config
    // RFC 8414 and OpenID Connect Discovery serve the same document, built once.
    const metadata = JSON.stringify(
      serverMetadata(issuer, context.advertised, {
        clientIdMetadataDocuments: deps.config.clientIdMetadata.enabled,
      }),
    )
    const documents: Record<string, string> = {
      '/.well-known/oauth-authorization-server': metadata,
      '/.well-known/openid-configuration': metadata,
      '/.well-known/oauth-protected-resource': JSON.stringify(protectedResourceMetadata(issuer)),
    }
    for (const [path, body] of Object.entries(documents)) {
      app.get(path, async (_request, reply) =>
        reply.header('cache-control', METADATA_CACHE).type('application/json').send(body),
      )
    }
    app.get(JWKS_PATH, async (_request, reply) =>
      reply
        .header('cache-control', 'public, max-age=60')
        .type('application/jwk-set+json')
        .send(await deps.keys.jwks()),
    )
    const docs = renderDocs(issuer, context.advertised).replace(
      '</body>',
      `${renderApiReference(context.openapi)}</body>`,
    )
    app.get('/docs', async (_request, reply) =>
      reply
        .header('cache-control', METADATA_CACHE)
        .header(
          'content-security-policy',
          "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
        )
        .type('text/html; charset=utf-8')
        .send(docs),
    )
  },
}

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

function renderDocs(issuer: string, endpoints: Readonly<Record<string, string>>): string {
  const rows = Object.entries(endpoints)
    .map(
      ([key, url]) =>
        `<tr><td><code>${escapeHtml(key)}</code></td><td><code>${escapeHtml(url)}</code></td></tr>`,
    )
    .join('')
  const scopes = ALL_SCOPES.map((s) => `<code>${escapeHtml(s)}</code>`).join(' ')
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Portico developer documentation</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:50rem;margin:2rem auto;padding:0 1rem}td{padding:.2rem .6rem;border-bottom:1px solid #ddd}code{font-size:.9em}.op{border-top:1px solid #ddd;margin-top:1rem}.m{font:bold .8em monospace;background:#1f6feb;color:#fff;padding:.1rem .4rem;border-radius:.2rem}.a,.r{color:#555;font-size:.9em}</style></head>
<body><h1>Portico developer documentation</h1>
<p>Issuer: <code>${escapeHtml(issuer)}</code>. Start from <a href="/.well-known/oauth-authorization-server">the authorization server metadata</a>
or <a href="/.well-known/oauth-protected-resource">the protected resource metadata</a>; the API is described in <a href="/openapi.json">/openapi.json</a>.</p>
<h2>Endpoints</h2><table>${rows}</table>
<h2>Self-service registration</h2><p>POST a JSON body with <code>redirect_uris</code> to the registration endpoint. Only loopback callbacks of the form
<code>http://127.0.0.1:&lt;port&gt;/&lt;path&gt;</code> are accepted; fixed HTTPS callbacks need an integration registered by the school's operator.</p>
<h2>Scopes</h2><p>${scopes}</p></body></html>`
}
