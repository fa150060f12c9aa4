// ajv and ajv-formats come with @seriousme/openapi-schema-validator (a devDependency), which
// validates the document itself with the same Ajv 2020 build.
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import { beforeAll, describe, expect, it } from 'vitest'
import { openApiDocumentFor } from '../../../src/http/openapi-file.js'
import { useDemoServer } from '../../support/demo.js'
import type { Json } from '../../support/http.js'
import { type Call, moneyClient } from '../../support/money-agreement.js'

/**
 * The money screens answer what openapi.json says: each response validates against the
 * schema of its operation, and no member is served that the schema does not document (so a
 * figure like a digital product's `revenue` cannot be answered and missing from the file).
 */
const doc = openApiDocumentFor() as Json

function operationSchema(template: string): Json {
  const schema = doc.paths[template]?.get?.responses?.['200']?.content?.['application/json']?.schema
  expect(schema, template).toBeDefined()
  return schema
}

const resolve = (schema: Json): Json => {
  if (typeof schema?.$ref !== 'string') return schema
  const path = (schema.$ref as string).replace(/^#\//, '').split('/')
  return resolve(path.reduce((node: Json, key) => node[key.replace(/~1/g, '/')], doc))
}

/** Members of `value` that `schema` does not document, as JSON paths. */
function undocumented(schema: Json, value: unknown, path: string): string[] {
  const s = resolve(schema)
  if (!s || typeof s !== 'object') return []
  const alternatives = [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])] as Json[]
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

const { default: addFormats } = addFormatsModule
const ajv = new Ajv2020({ strict: false, validateSchema: false, allErrors: true })
addFormats(ajv)
ajv.addSchema(doc, 'openapi.json')

describe('money screens: responses match openapi.json', () => {
  const demo = useDemoServer()
  let call: Call
  beforeAll(async () => {
    call = await moneyClient(demo())
  })

  const screens: Array<[string, string]> = [
    ['/api/v1/analytics/overview', '/api/v1/analytics/overview?compare=previous_period'],
    ['/api/v1/analytics/revenue', '/api/v1/analytics/revenue?interval=week&group_by=product_type'],
    ['/api/v1/analytics/products', '/api/v1/analytics/products?limit=200'],
    ['/api/v1/membership_plans', '/api/v1/membership_plans'],
    ['/api/v1/membership_plans/{id}', '/api/v1/membership_plans/mpl_demo_studio_pass'],
    ['/api/v1/digital_products', '/api/v1/digital_products'],
    ['/api/v1/digital_products/{id}', '/api/v1/digital_products/dpr_demo_lightroom_preset_pack'],
    ['/api/v1/coupons', '/api/v1/coupons?limit=100'],
    ['/api/v1/orders', '/api/v1/orders?limit=100'],
    ['/api/v1/subscriptions', '/api/v1/subscriptions?limit=100'],
  ]

  it.each(screens)('%s answers its schema, and documents every member', async (template, path) => {
    const body = await call(path)
    const pointer = `openapi.json#/paths/${template.replace(/\//g, '~1')}/get/responses/200/content/application~1json/schema`
    operationSchema(template)
    const validate = ajv.compile({ $ref: pointer })
    expect(validate(body) ? [] : validate.errors, path).toEqual([])
    expect(undocumented(operationSchema(template), body, '$'), path).toEqual([])
  })
})
