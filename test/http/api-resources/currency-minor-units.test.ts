import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Db } from '../../../src/storage/schema.js'
import { runCli } from '../../support/cli.js'
import {
  createPerson,
  registerTestClient,
  type TestClient,
  type TestPerson,
} from '../../support/flow.js'
import { type Json, readJson } from '../../support/http.js'
import { type Call, expectScreensAgree, moneyClient } from '../../support/money-agreement.js'
import { startTestServer, type TestServer } from '../../support/server.js'
import { databaseUrlOf, issue, signIn } from '../../support/token-lifecycle.js'
import { apiClient } from './conventions.js'

/**
 * Each currency in its own minor unit (issue 36): a school in JPY (no decimals), KWD and IQD
 * (three) or HUF (two, where Intl's own data says none) shows a price change on the account
 * page and in `portico activity` with exactly its ISO decimals, and counts an order's integer
 * minor units as they are in every analytics figure.
 */

const SCOPE = 'school:read school:write digital_products:read digital_products:write'

let server: TestServer
let owner: TestPerson
let app: TestClient
let call: ReturnType<typeof apiClient>
let money: Call
beforeAll(async () => {
  server = await startTestServer()
  owner = await createPerson(server, 'owner')
  app = await registerTestClient(server, { client_name: 'Ledger Tool' })
  const issued = await issue(server, { person: owner, client: app, scope: SCOPE })
  call = apiClient(server, issued.accessToken)
  money = await moneyClient(server)
})
afterAll(async () => {
  await server?.close()
})

/** Intl separates a code from its number with a no-break space; pages are read with plain ones. */
const plain = (text: string) => text.replace(/\s/gu, ' ')

async function write(path: string, method: string, json: Json): Promise<Json> {
  const response = await call(path, { method, json })
  const body = await readJson(response)
  expect(response.status, JSON.stringify(body)).toBeLessThan(300)
  return body
}

/** A paid order of one line of `product`, straight into the database (orders are read only). */
async function paidOrder(currency: string, product: string, total: number): Promise<void> {
  const db = server.deps.database.db as Db
  const id = `ord_minor_${currency.toLowerCase()}`
  const now = Date.now() - 60_000
  await db
    .insertInto('orders')
    .values({
      id,
      number: `M-${currency}`,
      status: 'paid',
      student_id: null,
      customer_email: `${currency.toLowerCase()}@example.com`,
      customer_name: null,
      currency,
      subtotal: total,
      discount_total: 0,
      tax_total: 0,
      total,
      amount_refunded: 0,
      coupon_id: null,
      coupon_code: null,
      payment: JSON.stringify({ provider: 'stripe', method: 'card', provider_reference: null }),
      subscription_id: null,
      source: 'checkout',
      paid_at: now,
      created_at: now,
      updated_at: now,
    })
    .execute()
  await db
    .insertInto('order_items')
    .values({
      id: `oit_minor_${currency.toLowerCase()}`,
      order_id: id,
      position: 0,
      product_type: 'digital_product',
      product_id: product,
      price_id: null,
      event_id: null,
      name: `Ledger ${currency}`,
      quantity: 1,
      unit_amount: total,
      discount_amount: 0,
      total_amount: total,
    })
    .execute()
}

const CASES = [
  { currency: 'JPY', before: 500, after: 400, shown: ['¥500', '¥400'] },
  { currency: 'KWD', before: 1234, after: 1000, shown: ['KWD 1.234', 'KWD 1.000'] },
  { currency: 'IQD', before: 1234, after: 5, shown: ['IQD 1.234', 'IQD 0.005'] },
  { currency: 'HUF', before: 1050, after: 99, shown: ['HUF 10.50', 'HUF 0.99'] },
] as const

describe('a school in a currency of its own minor unit', () => {
  it.each(CASES)('$currency: the page, the CLI and the figures', async (c) => {
    const previous = (await readJson(await call('/api/v1/school'))).currency
    await write('/api/v1/school', 'PATCH', { currency: c.currency })
    const title = `Ledger ${c.currency}`
    const product = await write('/api/v1/digital_products', 'POST', {
      title,
      price: { amount: c.before, currency: c.currency },
    })
    await write(`/api/v1/digital_products/${product.id}`, 'PATCH', {
      price: { amount: c.after, currency: c.currency },
    })
    const sentence = `changed the price of “${title}” from ${c.shown[0]} to ${c.shown[1]}`

    // The account page, signed in as the owner whose app made the change.
    const browser = await signIn(server, owner)
    const page = await browser.request(`/account?app=${encodeURIComponent(app.clientId)}`)
    expect(page.status).toBe(200)
    expect(plain(await page.text())).toContain(sentence)

    // The operators' listing.
    const cli = await runCli(['activity', '--client', app.clientId, '--since', '1h'], {
      DATABASE_URL: databaseUrlOf(server),
      PORTICO_KEY_ENCRYPTION_SECRET: 'test-secret-test-secret-test-secret-0123',
      PORTICO_ISSUER: server.issuer,
    })
    expect(cli.stderr).toBe('')
    expect(plain(cli.stdout)).toContain(sentence)

    // The school's currency change is recorded with its values (a closed kind).
    const [change] = (
      await readJson(await call(`/api/v1/activity?resource=school&client=${app.clientId}&limit=1`))
    ).data
    expect(change.changes).toContainEqual({
      field: 'currency',
      before: previous,
      after: c.currency,
    })

    // Figures: integer minor units, as they are, in the order's own currency.
    await paidOrder(c.currency, product.id, c.before)
    const overview = await money('/api/v1/analytics/overview?timezone=UTC')
    expect(overview.currency).toBe(c.currency)
    expect(overview.currencies[0]).toBe(c.currency)
    expect(overview.revenue.gross[0]).toEqual({ amount: c.before, currency: c.currency })
    const sold = await money(`/api/v1/digital_products/${product.id}`)
    expect(sold.revenue[0]).toEqual({ amount: c.before, currency: c.currency })
    // And every screen agrees with an independent computation over the records.
    await expectScreensAgree(money)
  })
})
