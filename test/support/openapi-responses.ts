// Ajv's 2020-12 build is the draft OpenAPI 3.1 schemas use. ajv and ajv-formats are
// devDependencies; @seriousme/openapi-schema-validator validates the document itself with them.
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import { openApiDocumentFor } from '../../src/http/openapi-file.js'
import type { Json } from './http.js'

/**
 * Checks a response body against what openapi.json declares for it: the schema of the
 * operation's response (with `$ref`s into components resolved by Ajv), and no member served
 * that the schema does not document (the schemas leave `additionalProperties` open, so Ajv
 * alone would let an undocumented field through).
 */
export const openApiDocument = openApiDocumentFor() as Json

const { default: addFormats } = addFormatsModule
const ajv = new Ajv2020({ strict: false, validateSchema: false, allErrors: true })
addFormats(ajv)
ajv.addSchema(openApiDocument, 'openapi.json')

const pointerKey = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1')

/** The declared schema of one response, or undefined when the document declares none. */
export function responseSchema(
  template: string,
  status: number,
  contentType: string,
  method = 'get',
): Json | undefined {
  return openApiDocument.paths[template]?.[method]?.responses?.[String(status)]?.content?.[
    contentType
  ]?.schema
}

const resolve = (schema: Json): Json => {
  if (typeof schema?.$ref !== 'string') return schema
  const path = (schema.$ref as string).replace(/^#\//, '').split('/')
  return resolve(
    path.reduce(
      (node: Json, key) => node[key.replace(/~1/g, '/').replace(/~0/g, '~')],
      openApiDocument,
    ),
  )
}

/** `allOf` as one schema: a member any part documents is documented. */
function merged(schema: Json): Json {
  if (!schema?.allOf) return schema
  const parts = [schema, ...(schema.allOf as Json[]).map((part) => merged(resolve(part)))]
  const open = parts.find((part) => part.additionalProperties !== undefined)
  return {
    ...Object.assign({}, ...parts),
    allOf: undefined,
    properties: Object.assign({}, ...parts.map((part) => part.properties ?? {})),
    ...(open && { additionalProperties: open.additionalProperties }),
  }
}

/** Members of `value` that `schema` does not document, as JSON paths. */
export function undocumented(schema: Json, value: unknown, path = '$'): string[] {
  const s = merged(resolve(schema))
  if (!s || typeof s !== 'object') return []
  const alternatives = [...(s.anyOf ?? []), ...(s.oneOf ?? [])] as Json[]
  if (alternatives.length > 0) {
    const found = alternatives.map((a) => undocumented(a, value, path))
    return found.find((f) => f.length === 0) ?? (found[0] as string[])
  }
  if (Array.isArray(value))
    return s.items ? value.flatMap((v, i) => undocumented(s.items, v, `${path}[${i}]`)) : []
  if (value === null || typeof value !== 'object') return []
  const out: string[] = []
  for (const [key, member] of Object.entries(value)) {
    const declared = s.properties?.[key]
    if (declared) out.push(...undocumented(declared, member, `${path}.${key}`))
    else if (s.additionalProperties && typeof s.additionalProperties === 'object')
      out.push(...undocumented(s.additionalProperties, member, `${path}.${key}`))
    else if (s.additionalProperties !== true) out.push(`${path}.${key}`)
  }
  return out
}

const compiled = new Map<string, ReturnType<typeof ajv.compile>>()

/**
 * What is wrong with `body` as the `status` response of GET `template` in `contentType`: an
 * undeclared response, Ajv's errors, then undocumented members. Empty when it matches.
 */
export function mismatches(
  template: string,
  status: number,
  contentType: string,
  body: unknown,
  method = 'get',
): string[] {
  const schema = responseSchema(template, status, contentType, method)
  if (schema === undefined)
    return [`${method.toUpperCase()} ${template} declares no ${status} ${contentType} response`]
  const pointer = `openapi.json#/paths/${pointerKey(template)}/${method}/responses/${status}/content/${pointerKey(contentType)}/schema`
  let validate = compiled.get(pointer)
  if (!validate) {
    validate = ajv.compile({ $ref: pointer })
    compiled.set(pointer, validate)
  }
  const errors = validate(body)
    ? []
    : (validate.errors ?? []).map(
        (e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`,
      )
  return [...errors, ...undocumented(schema, body).map((p) => `undocumented member ${p}`)]
}

const literalCount = (template: string) =>
  template.split('/').filter((s) => s !== '' && !s.startsWith('{')).length

/**
 * The template of openapi.json that serves `method` on a concrete path (its query left out):
 * `/api/v1/courses/crs_1/publish` → `/api/v1/courses/{id}/publish`. The template with the
 * most literal segments wins, so `/courses/{id}` never takes a `/courses/slug-like` literal.
 */
export function templateOf(path: string, method: string): string | undefined {
  const segments = (path.split('?')[0] as string).split('/')
  const fits = (template: string) => {
    const parts = template.split('/')
    return (
      parts.length === segments.length &&
      parts.every((part, i) => part.startsWith('{') || part === segments[i])
    )
  }
  return Object.keys(openApiDocument.paths)
    .filter((template) => openApiDocument.paths[template]?.[method.toLowerCase()] && fits(template))
    .sort((a, b) => literalCount(b) - literalCount(a))[0]
}

/**
 * What is wrong with a write's answer (`POST`/`PATCH`/`PUT` on a concrete path), read from its
 * response: the schema openapi.json declares for that path, method, status and content type.
 */
export function writeMismatches(
  method: string,
  path: string,
  response: Response,
  body: unknown,
): string[] {
  const template = templateOf(path, method)
  if (!template) return [`${method} ${path}: openapi.json declares no such operation`]
  const contentType = (response.headers.get('content-type') ?? '').split(';')[0] ?? ''
  return mismatches(template, response.status, contentType, body, method.toLowerCase()).map(
    (m) => `${method} ${template} ${response.status}: ${m}`,
  )
}
