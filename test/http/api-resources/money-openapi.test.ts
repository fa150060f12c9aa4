import { beforeAll, describe, expect, it } from 'vitest'
import { useDemoServer } from '../../support/demo.js'
import { type Call, moneyClient } from '../../support/money-agreement.js'
import { mismatches } from '../../support/openapi-responses.js'

/**
 * The money screens answer what openapi.json says, with the query variants that change their
 * shape: each response validates against the schema of its operation, and no member is served
 * that the schema does not document (so a figure like a digital product's `revenue` cannot be
 * answered and missing from the file). responses-match-openapi.test.ts walks every other GET.
 */
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
    expect(mismatches(template, 200, 'application/json', body), path).toEqual([])
  })
})
