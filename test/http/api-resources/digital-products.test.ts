import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { digitalProducts } from '../../../src/api/catalogue/digital-products.resource.js'
import { sniff } from '../../../src/storage/file-bytes/sniff.js'
import { useDemoServer } from '../../support/demo.js'
import { tinyPdf, tinyPng } from '../../support/files.js'
import { type Json, readJson } from '../../support/http.js'
import { startTestServer, type TestServer } from '../../support/server.js'
import { issue } from '../../support/token-lifecycle.js'
import { apiClient, checkConventions } from './conventions.js'

const BASE = '/api/v1/digital_products'
const SCOPE = 'digital_products:read digital_products:write storage:write'
const usd = (amount: number) => ({ amount, currency: 'USD' })

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(async () => {
  await server?.close()
})

async function writer() {
  const { accessToken } = await issue(server, { role: 'editor', scope: SCOPE })
  return { token: accessToken, call: apiClient(server, accessToken) }
}

/** Uploads a file (raw) and returns its File object. */
async function upload(
  token: string,
  bytes: Buffer,
  type: string,
  purpose = 'digital_product',
  filename = 'file',
): Promise<Json> {
  const response = await server.fetch(
    `/api/v1/storage/files?purpose=${purpose}&filename=${encodeURIComponent(filename)}`,
    {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': type },
      body: bytes,
    },
  )
  const body = await readJson(response)
  expect(response.status, JSON.stringify(body)).toBe(201)
  return body
}

/** A product with one PDF, published. */
async function publishedProduct(extra: Json = {}): Promise<Json> {
  const { token, call } = await writer()
  const file = await upload(token, tinyPdf(['x']), 'application/pdf', 'digital_product', 'x.pdf')
  const created = await call(BASE, {
    method: 'POST',
    json: { title: 'Guide', price: usd(900), files: [{ file_id: file.id }], ...extra },
  })
  expect(created.status).toBe(201)
  const { id } = await readJson(created)
  const published = await call(`${BASE}/${id}/publish`, { method: 'POST' })
  expect(published.status).toBe(200)
  return readJson(published)
}

describe('/api/v1/digital_products: the conventions', () => {
  checkConventions(() => server, {
    resource: digitalProducts,
    sample: (n) => ({ title: `Preset pack ${n}`, price: usd(1000 + n) }),
    update: { license_text: 'Personal use only.' },
    invalid: { body: { price: { amount: -1, currency: 'USD' } }, field: 'price' },
    deniedRole: 'lecturer',
    async makePublic(id, token) {
      // The file comes from an uploader of our own: the checks' token holds only this resource's scopes.
      const file = await upload((await writer()).token, tinyPng(4, 4, [1, 2, 3]), 'image/png')
      const call = apiClient(server, token)
      const patched = await call(`${BASE}/${id}`, {
        method: 'PATCH',
        json: { files: [{ file_id: file.id }] },
      })
      expect(patched.status).toBe(200)
      expect((await call(`${BASE}/${id}/publish`, { method: 'POST' })).status).toBe(200)
    },
  })
})

describe('digital products: files', () => {
  it('fills each file’s type and size from storage, and names it after the file by default', async () => {
    const { token, call } = await writer()
    const pdf = tinyPdf(['Checklist'])
    const file = await upload(token, pdf, 'application/pdf', 'digital_product', 'list.pdf')
    const png = await upload(token, tinyPng(8, 8, [9, 9, 9]), 'image/png', 'digital_product')
    const response = await call(BASE, {
      method: 'POST',
      json: {
        title: 'Checklist',
        price: usd(0),
        files: [{ file_id: file.id }, { file_id: png.id, name: 'Preview', size: 1 }],
      },
    })
    expect(response.status).toBe(201)
    const body = await readJson(response)
    expect(body.files).toHaveLength(2)
    expect(body.files[0]).toMatchObject({
      file_id: file.id,
      name: 'list.pdf',
      content_type: 'application/pdf',
      size: pdf.length,
    })
    expect(body.files[1]).toMatchObject({ name: 'Preview', content_type: 'image/png' })
    expect(body.files[1].size).toBe(png.size)
  })

  it('refuses files that do not exist, were uploaded for another purpose, or repeat', async () => {
    const { token, call } = await writer()
    const cover = await upload(token, tinyPng(2, 2, [0, 0, 0]), 'image/png', 'course_cover')
    const own = await upload(token, tinyPdf(['a']), 'application/pdf')
    const response = await call(BASE, {
      method: 'POST',
      json: {
        title: 'Broken',
        price: usd(100),
        files: [{ file_id: 'fil_missing' }, { file_id: cover.id }, { file_id: own.id }],
      },
    })
    expect(response.status).toBe(422)
    const body = await readJson(response)
    expect(body.errors).toEqual([
      expect.objectContaining({ field: 'files[0].file_id', code: 'not_found' }),
      expect.objectContaining({ field: 'files[1].file_id', code: 'purpose' }),
    ])
    const twice = await call(BASE, {
      method: 'POST',
      json: { title: 'Twice', price: usd(100), files: [{ file_id: own.id }, { file_id: own.id }] },
    })
    expect((await readJson(twice)).errors[0]).toMatchObject({
      field: 'files[1].file_id',
      code: 'duplicate',
    })
  })

  it('gives authorized callers a working signed download link; the public only names, types, sizes', async () => {
    const product = await publishedProduct()
    const [file] = product.files
    expect(file.download_url).toMatch(/\/files\/fil_[^/]+\/x\.pdf\?expires=\d+&signature=/)
    const download = await fetch(file.download_url)
    expect(download.status).toBe(200)
    expect(download.headers.get('content-type')).toBe('application/pdf')
    expect(sniff(Buffer.from(await download.arrayBuffer()))).toBe('application/pdf')

    const anonymous = apiClient(server)
    const other = await issue(server, { role: 'owner', scope: 'courses:read' })
    for (const call of [anonymous, apiClient(server, other.accessToken)]) {
      const one = await readJson(await call(`${BASE}/${product.id}`))
      expect(one.files).toEqual([
        { name: 'x.pdf', content_type: 'application/pdf', size: file.size },
      ])
      expect(JSON.stringify(one)).not.toContain('/files/')
      expect(one).not.toHaveProperty('sales_count')
      expect(one).not.toHaveProperty('revenue')
      const list = await readJson(await call(`${BASE}?limit=100`))
      const listed = list.data.find((p: Json) => p.id === product.id)
      expect(listed.files[0]).not.toHaveProperty('download_url')
      expect(listed.files[0]).not.toHaveProperty('file_id')
    }
    // The file itself stays private: its plain URL without the signature is a 404.
    const plain = new URL(file.download_url)
    expect((await fetch(`${plain.origin}${plain.pathname}`)).status).toBe(404)
  })

  it('publishes only with a file; a price of 0 is a free lead magnet', async () => {
    const { call } = await writer()
    const created = await readJson(
      await call(BASE, { method: 'POST', json: { title: 'Empty', price: usd(0) } }),
    )
    expect(created.price).toEqual(usd(0))
    const refused = await call(`${BASE}/${created.id}/publish`, { method: 'POST' })
    expect(refused.status).toBe(422)
    expect((await readJson(refused)).errors[0].field).toBe('files')
  })

  it('checks compare_at_price against the price', async () => {
    const { call } = await writer()
    const response = await call(BASE, {
      method: 'POST',
      json: { title: 'Deal', price: usd(2000), compare_at_price: usd(1500) },
    })
    expect(response.status).toBe(422)
    expect((await readJson(response)).errors[0].field).toBe('compare_at_price.amount')
    const ok = await call(BASE, {
      method: 'POST',
      json: { title: 'Deal', price: usd(2000), compare_at_price: usd(2500) },
    })
    expect(ok.status).toBe(201)
  })

  it('prices products in the school currency only', async () => {
    const { call } = await writer()
    const response = await call(BASE, {
      method: 'POST',
      json: { title: 'Euro deal', price: { amount: 900, currency: 'EUR' } },
    })
    expect(response.status).toBe(422)
    expect((await readJson(response)).errors).toContainEqual(
      expect.objectContaining({ field: 'price.currency', code: 'currency' }),
    )
  })
})

describe('digital products: visibility', () => {
  it('lists published public products to the public; unlisted ones only by id or slug', async () => {
    const unlisted = await publishedProduct({ visibility: 'unlisted', title: 'Secret sale' })
    const listed = await publishedProduct({ title: 'Open sale' })
    const { call } = await writer()
    const draft = await readJson(
      await call(BASE, { method: 'POST', json: { title: 'Draft', price: usd(1) } }),
    )
    const anonymous = apiClient(server)
    const ids = (await readJson(await anonymous(`${BASE}?limit=100`))).data.map((p: Json) => p.id)
    expect(ids).toContain(listed.id)
    expect(ids).not.toContain(unlisted.id)
    expect(ids).not.toContain(draft.id)
    expect((await anonymous(`${BASE}/${unlisted.slug}`)).status).toBe(200)
    expect((await anonymous(`${BASE}/${draft.id}`)).status).toBe(404)
    const archived = await call(`${BASE}/${listed.id}/archive`, { method: 'POST' })
    expect((await readJson(archived)).status).toBe('archived')
    expect((await anonymous(`${BASE}/${listed.id}`)).status).toBe(404)
  })
})

describe('digital products: sales and revenue from the orders', () => {
  it('counts sold units and nets refunds; refuses deleting a sold product (409 → archive)', async () => {
    const product = await publishedProduct({ price: usd(2400) })
    const db = server.deps.database.db
    const now = Date.now()
    const order = async (n: number, status: string, total: number, refunded = 0) => {
      const id = `ord_test_${n}_${Math.random().toString(36).slice(2, 8)}`
      await db
        .insertInto('orders')
        .values({
          id,
          number: id,
          status: status as 'paid',
          student_id: null,
          customer_email: `buyer${n}@example.com`,
          customer_name: null,
          currency: 'USD',
          subtotal: total,
          discount_total: 0,
          tax_total: 0,
          total,
          amount_refunded: refunded,
          coupon_id: null,
          coupon_code: null,
          payment: JSON.stringify({ provider: 'stripe' }),
          subscription_id: null,
          source: 'checkout',
          paid_at: status === 'pending' || status === 'failed' ? null : now,
          created_at: now,
          updated_at: now,
        })
        .execute()
      // The refunds themselves are the source of truth (amount_refunded is their sum).
      if (refunded > 0)
        await db
          .insertInto('refunds')
          .values({
            id: `rfd_${id}`,
            order_id: id,
            amount: refunded,
            reason: null,
            created_at: now,
          })
          .execute()
      // Each order: this product for 2400, and a second line of another product.
      const lines = [
        { product_id: product.id, total_amount: 2400 },
        { product_id: 'dpr_other', total_amount: total - 2400 },
      ]
      for (const [position, line] of lines.entries())
        await db
          .insertInto('order_items')
          .values({
            id: `oit_${id}_${position}`,
            order_id: id,
            position,
            product_type: 'digital_product',
            product_id: line.product_id,
            price_id: null,
            event_id: null,
            name: 'Line',
            quantity: 1,
            unit_amount: line.total_amount,
            discount_amount: 0,
            total_amount: line.total_amount,
          })
          .execute()
    }
    await order(1, 'paid', 4800)
    // Half of 4800 refunded: this line's share is half of its 2400.
    await order(2, 'partially_refunded', 4800, 2400)
    await order(3, 'refunded', 4800, 4800)
    await order(4, 'pending', 4800)
    await order(5, 'failed', 4800)
    const { call } = await writer()
    const body = await readJson(await call(`${BASE}/${product.id}`))
    expect(body.sales_count).toBe(3)
    expect(body.revenue).toEqual([usd(2400 + 1200 + 0)])
    const listed = (await readJson(await call(`${BASE}?limit=100`))).data.find(
      (p: Json) => p.id === product.id,
    )
    expect(listed.revenue).toEqual(body.revenue)

    const refused = await call(`${BASE}/${product.id}`, { method: 'DELETE' })
    expect(refused.status).toBe(409)
    expect((await readJson(refused)).detail).toContain('archive')

    const unsold = await publishedProduct()
    expect((await call(`${BASE}/${unsold.id}`, { method: 'DELETE' })).status).toBe(204)
  })
})

describe('digital products: the demo school', () => {
  const demo = useDemoServer()
  it('stores real placeholder files through the file store, and the three demo products', async () => {
    const { accessToken } = await issue(demo(), { role: 'owner', scope: SCOPE })
    const call = apiClient(demo(), accessToken)
    const pack = await readJson(await call(`${BASE}/dpr_demo_lightroom_preset_pack`))
    expect(pack).toMatchObject({ status: 'published', price: usd(2400) })
    expect(pack.files).toHaveLength(2)
    const checklist = await readJson(await call(`${BASE}/gear-checklist`))
    expect(checklist).toMatchObject({ id: 'dpr_demo_gear_checklist', price: usd(0) })
    const guide = await readJson(await call(`${BASE}/dpr_demo_posing_guide`))
    expect(guide.status).toBe('draft')
    for (const file of [...pack.files, ...checklist.files]) {
      const response = await fetch(file.download_url)
      expect(response.status).toBe(200)
      const bytes = Buffer.from(await response.arrayBuffer())
      expect(bytes.length).toBe(file.size)
      expect(sniff(bytes)).toBe(file.content_type)
    }
    const cover = await fetch(pack.cover_image_url)
    expect(cover.status).toBe(200)
    expect(cover.headers.get('content-type')).toBe('image/png')
    // The public sees the published two, not the draft.
    const publicIds = (await readJson(await apiClient(demo())(`${BASE}?limit=100`))).data.map(
      (p: Json) => p.id,
    )
    expect(publicIds).toEqual(
      expect.arrayContaining(['dpr_demo_lightroom_preset_pack', 'dpr_demo_gear_checklist']),
    )
    expect(publicIds).not.toContain('dpr_demo_posing_guide')
  })
})
