import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadOrders } from '../../../src/api/demo/load-orders.js'
import { demoTime } from '../../../src/api/demo/when.js'
import type { Db } from '../../../src/storage/schema.js'
import { connect, issueForMcp, textJson } from '../../mcp/support.js'
import { type Json, readJson } from '../../support/http.js'
import { startTestServer, type TestServer } from '../../support/server.js'
import { issue } from '../../support/token-lifecycle.js'
import { apiClient } from './conventions.js'

/**
 * Money in currencies that exist (issue 36): wherever a currency is written (the school's,
 * every price's), only an active ISO 4217 code with a minor unit is accepted, else 422
 * `invalid_currency` naming the field; REST and MCP alike, and the demo loader too.
 */

const SCOPE = [
  'school:read school:write courses:write coupons:write membership_plans:write',
  'digital_products:write events:write',
].join(' ')
const HOUR = 3_600_000

let server: TestServer
let call: ReturnType<typeof apiClient>
beforeAll(async () => {
  server = await startTestServer()
  const { accessToken } = await issue(server, { role: 'owner', scope: SCOPE })
  call = apiClient(server, accessToken)
})
afterAll(async () => {
  await server?.close()
})

async function setSchoolCurrency(currency: string): Promise<void> {
  const response = await call('/api/v1/school', { method: 'PATCH', json: { currency } })
  expect(response.status, JSON.stringify(await readJson(response))).toBe(200)
}

/** The field errors of a 422, or a failure naming what came instead. */
async function fieldErrors(response: Response): Promise<Json[]> {
  const body = await readJson(response)
  expect(response.status, JSON.stringify(body)).toBe(422)
  return body.errors
}

const REFUSED = ['BTC', 'XXX', 'XTS', 'XAU', 'XDR', 'USN', 'usd', 'US', 'ZZZ', 'USDX', '']

describe('the school currency', () => {
  it.each(REFUSED)('refuses %j with invalid_currency', async (currency) => {
    const response = await call('/api/v1/school', { method: 'PATCH', json: { currency } })
    const errors = await fieldErrors(response)
    expect(errors).toEqual([
      {
        field: 'currency',
        code: 'invalid_currency',
        message: expect.stringMatching(/active ISO 4217 currency code with a minor unit/),
      },
    ])
  })

  it('accepts JPY, KWD and USD, and null', async () => {
    for (const currency of ['JPY', 'KWD', 'USD']) {
      const response = await call('/api/v1/school', { method: 'PATCH', json: { currency } })
      expect(response.status).toBe(200)
      expect((await readJson(response)).currency).toBe(currency)
    }
    const cleared = await call('/api/v1/school', { method: 'PATCH', json: { currency: null } })
    expect((await readJson(cleared)).currency).toBeNull()
    await setSchoolCurrency('USD')
  })

  it('refuses the same codes over MCP, through the same operation', async () => {
    const { accessToken } = await issueForMcp(server, { role: 'owner', scope: 'school:write' })
    const client = await connect(server, accessToken)
    try {
      const refused = await client.callTool({
        name: 'school_update',
        arguments: { currency: 'BTC' },
      })
      expect(refused.isError).toBe(true)
      expect(textJson(refused)).toMatchObject({
        status: 422,
        errors: [{ field: 'currency', code: 'invalid_currency' }],
      })
      const accepted = await client.callTool({
        name: 'school_update',
        arguments: { currency: 'USD' },
      })
      expect(accepted.isError).toBeFalsy()
    } finally {
      await client.close()
    }
  })
})

const at = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z')
let serial = 0

/** Every resource that takes a price: where it is written, and where its currency sits. */
const PRICED: ReadonlyArray<{
  readonly resource: string
  readonly path: string
  readonly body: (price: Json) => Json
  readonly field: string
}> = [
  {
    resource: 'a course’s pricing plan',
    path: '/api/v1/courses',
    body: (price) => ({
      title: `Priced course ${++serial}`,
      pricing_plans: [{ name: 'Full', type: 'one_time', price }],
    }),
    field: 'pricing_plans[0].price.currency',
  },
  {
    resource: 'a coupon’s fixed amount',
    path: '/api/v1/coupons',
    body: (price) => ({
      code: `FIXED${++serial}`,
      discount: { type: 'fixed_amount', amount_off: price },
    }),
    field: 'discount.amount_off.currency',
  },
  {
    resource: 'a coupon’s minimum order',
    path: '/api/v1/coupons',
    body: (price) => ({
      code: `MIN${++serial}`,
      discount: { type: 'percent', percent_off: 10 },
      min_order_amount: price,
    }),
    field: 'min_order_amount.currency',
  },
  {
    resource: 'a membership plan’s price',
    path: '/api/v1/membership_plans',
    body: (price) => ({
      name: `Plan ${++serial}`,
      billing_type: 'lifetime',
      prices: [{ amount: price }],
    }),
    field: 'prices[0].amount.currency',
  },
  {
    resource: 'a digital product',
    path: '/api/v1/digital_products',
    body: (price) => ({ title: `Product ${++serial}`, price }),
    field: 'price.currency',
  },
  {
    resource: 'an event ticket',
    path: '/api/v1/events',
    body: (price) => ({
      title: `Event ${++serial}`,
      starts_at: at(Date.now() + 48 * HOUR),
      ends_at: at(Date.now() + 49 * HOUR),
      location: { platform: 'zoom', join_url: 'https://zoom.us/j/123456789' },
      tickets: [{ name: 'Seat', price }],
    }),
    field: 'tickets[0].price.currency',
  },
]

describe('prices', () => {
  it.each(PRICED)('$resource refuses BTC and XXX with invalid_currency', async (priced) => {
    for (const currency of ['BTC', 'XXX', 'jpy']) {
      const response = await call(priced.path, {
        method: 'POST',
        json: priced.body({ amount: 500, currency }),
      })
      expect(await fieldErrors(response)).toContainEqual(
        expect.objectContaining({ field: priced.field, code: 'invalid_currency' }),
      )
    }
  })

  it.each(PRICED)('$resource accepts JPY and KWD in a school of that currency', async (priced) => {
    try {
      for (const currency of ['JPY', 'KWD']) {
        await setSchoolCurrency(currency)
        const response = await call(priced.path, {
          method: 'POST',
          json: priced.body({ amount: 1234, currency }),
        })
        const body = await readJson(response)
        expect(response.status, JSON.stringify(body)).toBe(201)
        expect(JSON.stringify(body)).toContain(`{"amount":1234,"currency":"${currency}"}`)
      }
    } finally {
      await setSchoolCurrency('USD')
    }
  })

  it.each(PRICED)('$resource refuses a real currency other than the school’s', async (priced) => {
    const response = await call(priced.path, {
      method: 'POST',
      json: priced.body({ amount: 500, currency: 'JPY' }),
    })
    expect(await fieldErrors(response)).toContainEqual(
      expect.objectContaining({ field: priced.field, code: 'currency' }),
    )
  })
})

describe('the demo loader', () => {
  it('refuses an order in a code money is not written in, before writing it', async () => {
    const db = server.deps.database.db as Db
    const time = demoTime(Date.now())
    await expect(
      loadOrders(db, time, [{ n: 9001, day: -1, by: 1, lines: [], currency: 'BTC' }]),
    ).rejects.toThrow(/demo order 9001: BTC/)
    const written = await db
      .selectFrom('orders')
      .select('id')
      .where('id', '=', 'ord_demo_9001')
      .execute()
    expect(written).toEqual([])
  })
})
