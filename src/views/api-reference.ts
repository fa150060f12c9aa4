import { resourceSchemas } from '../api/framework/openapi.js'
import type { OpenApiPaths } from '../api/openapi-paths.js'
import { RESOURCES } from '../api/registry.js'

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const

type Json = Record<string, unknown>

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

const code = (text: string) => `<code>${escapeHtml(text)}</code>`

/** A short type label for a JSON Schema: `string`, `integer | null`, `Course`, `list of …`. */
function typeOf(schema: Json | undefined): string {
  if (!schema) return ''
  if (typeof schema.$ref === 'string') return schema.$ref.split('/').pop() ?? ''
  if (Array.isArray(schema.enum)) return schema.enum.map(String).join(' | ')
  if (schema.const !== undefined) return JSON.stringify(schema.const)
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as Json[]).map(typeOf).join(' | ')
  if (schema.type === 'array') return `list of ${typeOf(schema.items as Json) || 'values'}`
  if (Array.isArray(schema.type)) return schema.type.join(' | ')
  return typeof schema.type === 'string' ? schema.type : 'object'
}

function operationHtml(method: string, path: string, op: Json): string {
  const security = (op.security as Json[] | undefined) ?? []
  const scopes = security.flatMap((s) => (s.oauth2 as string[] | undefined) ?? [])
  const anonymous = security.some((s) => Object.keys(s).length === 0)
  const access = scopes.length
    ? `${anonymous ? 'Public projection without a token; full with ' : 'Needs '}${scopes.map(code).join(', ')}`
    : 'No token needed'
  const params = ((op.parameters as Json[] | undefined) ?? [])
    .map(
      (p) =>
        `<tr><td>${code(String(p.name))}</td><td>${escapeHtml(String(p.in))}</td><td>${escapeHtml(typeOf(p.schema as Json))}</td><td>${escapeHtml(String(p.description ?? ''))}</td></tr>`,
    )
    .join('')
  const body = (op.requestBody as Json | undefined)?.content as Json | undefined
  const bodySchema = (body?.['application/json'] as Json | undefined)?.schema as Json | undefined
  const responses = Object.entries((op.responses as Json | undefined) ?? {})
    .map(([status, r]) => `${code(status)} ${escapeHtml(String((r as Json).description ?? ''))}`)
    .join('<br>')
  return `<section class="op"><h3><span class="m">${method.toUpperCase()}</span> ${code(path)}</h3>
<p>${escapeHtml(String(op.summary ?? ''))}</p><p class="a">${access}</p>
${params ? `<table><tr><th>parameter</th><th>in</th><th>type</th><th></th></tr>${params}</table>` : ''}
${bodySchema ? `<p>Body: ${bodySchema.$ref ? `<a href="#schema-${escapeHtml(typeOf(bodySchema))}">${escapeHtml(typeOf(bodySchema))}</a>` : escapeHtml(typeOf(bodySchema))}</p>` : ''}
<p class="r">${responses}</p></section>`
}

function schemaHtml(name: string, schema: Json): string {
  const required = new Set((schema.required as string[] | undefined) ?? [])
  const rows = Object.entries((schema.properties as Record<string, Json> | undefined) ?? {})
    .map(
      ([field, s]) =>
        `<tr><td>${code(field)}${required.has(field) ? ' *' : ''}</td><td>${escapeHtml(typeOf(s))}</td><td>${s.readOnly ? 'read-only. ' : ''}${escapeHtml(String(s.description ?? ''))}</td></tr>`,
    )
    .join('')
  return `<section id="schema-${escapeHtml(name)}"><h3>${escapeHtml(name)}</h3><table>${rows}</table></section>`
}

/**
 * The business API as a page for people: every operation of the OpenAPI paths under
 * /api/v1, grouped by collection, with access, parameters and responses, then the schemas.
 */
export function renderApiReference(paths: OpenApiPaths): string {
  const groups = new Map<string, string[]>()
  for (const [path, item] of Object.entries(paths).sort(([a], [b]) => a.localeCompare(b))) {
    if (!path.startsWith('/api/v1')) continue
    for (const method of METHODS) {
      const op = item[method] as Json | undefined
      if (!op) continue
      const tag = ((op.tags as string[] | undefined) ?? ['api'])[0] ?? 'api'
      groups.set(tag, [...(groups.get(tag) ?? []), operationHtml(method, path, op)])
    }
  }
  const toc = [...groups.keys()]
    .map((tag) => `<a href="#api-${escapeHtml(tag)}">${escapeHtml(tag)}</a>`)
    .join(' · ')
  const sections = [...groups]
    .map(([tag, ops]) => `<h2 id="api-${escapeHtml(tag)}">${escapeHtml(tag)}</h2>${ops.join('')}`)
    .join('')
  const schemas = Object.entries(resourceSchemas(RESOURCES))
    .map(([name, schema]) => schemaHtml(name, schema))
    .join('')
  return `<h2>The school's API</h2><p>Lists answer <code>{object: "list", data, has_more, next_cursor, total_count}</code>; pass <code>limit</code> (1–100) and the <code>cursor</code> you were given. Errors are RFC 9457 problem details; validation failures list each field in <code>errors</code>. Writes accept <code>If-Match</code> and POSTs <code>Idempotency-Key</code>.</p>
<p>${toc}</p>${sections}<h2>Schemas</h2>${schemas}`
}
