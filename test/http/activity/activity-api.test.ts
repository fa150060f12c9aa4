import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Caller } from '../../../src/api/caller.js'
import { apiOperations } from '../../../src/api/operations.js'
import { sweep } from '../../../src/main.js'
import type { Db } from '../../../src/storage/schema.js'
import { runCli } from '../../support/cli.js'
import {
  createPerson,
  registerTestClient,
  type TestClient,
  type TestPerson,
} from '../../support/flow.js'
import { type Json, readJson } from '../../support/http.js'
import { startTestServer, type TestServer } from '../../support/server.js'
import { databaseUrlOf, issue } from '../../support/token-lifecycle.js'
import { apiClient } from '../api-resources/conventions.js'

// The activity record (issue 21): every write made with a token, in the write's transaction.

let server: TestServer
let owner: TestPerson
let app: TestClient
let grantId: string
let call: ReturnType<typeof apiClient>
const SCOPE = 'digital_products:read digital_products:write school:read account:write'

beforeAll(async () => {
  server = await startTestServer()
  owner = await createPerson(server, 'owner')
  app = await registerTestClient(server, { client_name: 'Claude Code' })
  const issued = await issue(server, { person: owner, client: app, scope: SCOPE })
  grantId = issued.grantId
  call = apiClient(server, issued.accessToken)
})
afterAll(async () => {
  await server?.close()
})

const db = () => server.deps.database.db as Db
const activity = async (query = ''): Promise<Json> => {
  const response = await call(`/api/v1/activity${query}`)
  const body = await readJson(response)
  expect(response.status, JSON.stringify(body)).toBe(200)
  return body
}
const stored = async () =>
  Number(
    (
      await db()
        .selectFrom('activity')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirst()
    )?.n,
  )

async function product(title: string, amount = 4900): Promise<Json> {
  const response = await call('/api/v1/digital_products', {
    method: 'POST',
    json: { title, price: { amount, currency: 'USD' } },
  })
  const body = await readJson(response)
  expect(response.status, JSON.stringify(body)).toBe(201)
  return body
}

describe('what is recorded', () => {
  it('a create and an update, with the person, client, grant, operation and changed fields', async () => {
    const made = await product('Portrait Lighting')
    const patched = await call(`/api/v1/digital_products/${made.id}`, {
      method: 'PATCH',
      json: { price: { amount: 3900, currency: 'USD' }, title: 'Portrait Lighting II' },
    })
    expect(patched.status).toBe(200)
    const page = await activity(`?record_id=${made.id}`)
    expect(page.data.map((r: Json) => r.operation)).toEqual([
      'digital_products.update',
      'digital_products.create',
    ])
    const [update, create] = page.data
    expect(update).toMatchObject({
      object: 'activity',
      user_id: owner.user.id,
      client_id: app.clientId,
      client_name: 'Claude Code',
      client_url: null,
      grant_id: grantId,
      record_type: 'digital_product',
      record_id: made.id,
    })
    // Short text (the title) and money with their values before and after.
    expect(update.changes).toEqual([
      { field: 'title', before: 'Portrait Lighting', after: 'Portrait Lighting II' },
      {
        field: 'price',
        before: { amount: 4900, currency: 'USD' },
        after: { amount: 3900, currency: 'USD' },
      },
    ])
    expect(create.changes).toContainEqual({ field: 'status', after: 'draft' })
    expect(create.changes).toContainEqual({ field: 'title', after: 'Portrait Lighting' })
  })

  it('long and rich text by name only; what a PATCH leaves as it was, not at all', async () => {
    const made = await product('Plain')
    const licence = `password=${'x'.repeat(300)}`
    const patched = await call(`/api/v1/digital_products/${made.id}`, {
      method: 'PATCH',
      json: {
        title: 'Plain',
        slug: 'plain-renamed',
        description: '<p>secret body</p>',
        license_text: licence,
      },
    })
    expect(patched.status).toBe(200)
    const [update] = (await activity(`?record_id=${made.id}&limit=1`)).data
    expect(update.changes).toEqual([
      { field: 'slug', before: 'plain', after: 'plain-renamed' },
      { field: 'description' },
      { field: 'license_text' },
    ])
    expect(JSON.stringify(update)).not.toContain('secret body')
    expect(JSON.stringify(update)).not.toContain('password=')
  })

  it('an action, and a hand-written endpoint (own account), each under its operation', async () => {
    const made = await product('Action Hero')
    expect(
      (await call(`/api/v1/digital_products/${made.id}/archive`, { method: 'POST' })).status,
    ).toBe(200)
    const [publish] = (await activity(`?record_id=${made.id}&limit=1`)).data
    expect(publish.operation).toBe('digital_products.archive')
    expect(publish.changes).toContainEqual({ field: 'status', before: 'draft', after: 'archived' })
    const account = await call('/api/v1/account', {
      method: 'PATCH',
      json: { bio: 'hello', name: 'Ada Renamed' },
    })
    expect(account.status).toBe(200)
    const [own] = (await activity('?resource=account&limit=1')).data
    expect(own).toMatchObject({ operation: 'account.update', record_id: owner.user.id })
    expect(own.changes).toEqual([
      { field: 'name', before: owner.user.name, after: 'Ada Renamed' },
      { field: 'bio' },
    ])
    // The same PATCH again changes nothing, and records nothing.
    const before = await stored()
    const again = await call('/api/v1/account', {
      method: 'PATCH',
      json: { bio: 'hello', name: 'Ada Renamed' },
    })
    expect(again.status).toBe(200)
    expect(await stored()).toBe(before)
  })

  it('a failed write leaves nothing', async () => {
    const made = await product('Fails')
    const before = await stored()
    const refused = await call(`/api/v1/digital_products/${made.id}`, {
      method: 'PATCH',
      json: { price: { amount: -1, currency: 'USD' } },
    })
    expect(refused.status).toBe(422)
    const missing = await call('/api/v1/digital_products/dpr_nothing', {
      method: 'PATCH',
      json: { title: 'x' },
    })
    expect(missing.status).toBe(404)
    expect(await stored()).toBe(before)
  })

  it('a dry run leaves nothing', async () => {
    const made = await product('Rehearsed')
    const before = await stored()
    const update = apiOperations(server.deps).find((o) => o.name === 'digital_products.update')
    const caller: Caller = {
      kind: 'token',
      user: owner.user,
      clientId: app.clientId,
      grantId,
      scopes: new Set(SCOPE.split(' ')),
    }
    const result = await update?.run({
      caller,
      params: { id: made.id },
      query: {},
      body: { price: { amount: 100, currency: 'USD' } },
      contentType: 'application/json',
      dryRun: true,
    })
    expect(result?.headers?.['dry-run']).toBe('true')
    expect(await stored()).toBe(before)
  })

  it('the change and its record commit or roll back together', async () => {
    const made = await product('Together')
    // A fault after the change, inside its transaction: the record's insert fails.
    const postgres = server.deps.database.dialect === 'postgres'
    if (postgres) {
      await sql`create function refuse_activity() returns trigger language plpgsql as $$ begin if new.record_id = ${sql.lit(made.id)} then raise exception 'forced'; end if; return new; end $$`.execute(
        db(),
      )
      await sql`create trigger refuse_activity before insert on activity for each row execute function refuse_activity()`.execute(
        db(),
      )
    } else
      await sql`create trigger refuse_activity before insert on activity when new.record_id = ${sql.lit(made.id)} begin select raise(abort, 'forced'); end`.execute(
        db(),
      )
    try {
      const before = await stored()
      const failed = await call(`/api/v1/digital_products/${made.id}`, {
        method: 'PATCH',
        json: { price: { amount: 1234, currency: 'USD' } },
      })
      expect(failed.status).toBeGreaterThanOrEqual(500)
      const row = await db()
        .selectFrom('digital_products')
        .select('price_amount')
        .where('id', '=', made.id)
        .executeTakeFirstOrThrow()
      expect(Number(row.price_amount)).toBe(4900)
      expect(await stored()).toBe(before)
    } finally {
      await sql`drop trigger refuse_activity${postgres ? sql` on activity` : sql``}`.execute(db())
    }
    const saved = await call(`/api/v1/digital_products/${made.id}`, {
      method: 'PATCH',
      json: { price: { amount: 1234, currency: 'USD' } },
    })
    expect(saved.status).toBe(200)
    expect((await activity(`?record_id=${made.id}`)).data).toHaveLength(2)
  })

  it('writes refused for scope or role are counted per grant, not recorded', async () => {
    const reader = await issue(server, {
      person: owner,
      client: app,
      scope: 'digital_products:read',
    })
    const made = await product('Guarded')
    const before = await stored()
    for (let i = 0; i < 2; i += 1) {
      const refused = await apiClient(server, reader.accessToken)(
        `/api/v1/digital_products/${made.id}`,
        {
          method: 'PATCH',
          json: { title: 'no' },
        },
      )
      expect(refused.status).toBe(403)
    }
    expect(await stored()).toBe(before)
    const counted = await db()
      .selectFrom('activity_refusals')
      .selectAll()
      .where('grant_id', '=', reader.grantId)
      .executeTakeFirst()
    expect(Number(counted?.count)).toBe(2)
  })
})

describe('who reads it', () => {
  it('anonymous 401, a learner 403, an editor 403 forbidden_role, an admin sees every app', async () => {
    expect((await server.fetch('/api/v1/activity')).status).toBe(401)
    const learner = await issue(server, { role: 'student', scope: 'account:read' })
    const asLearner = await apiClient(server, learner.accessToken)('/api/v1/activity')
    expect(asLearner.status).toBe(403)
    expect((await readJson(asLearner)).code).toBe('insufficient_scope')
    const editor = await issue(server, { role: 'editor', scope: 'school:read' })
    const asEditor = await apiClient(server, editor.accessToken)('/api/v1/activity')
    expect(asEditor.status).toBe(403)
    expect((await readJson(asEditor)).code).toBe('forbidden_role')
    const admin = await issue(server, { role: 'admin', scope: 'school:read' })
    const asAdmin = await apiClient(
      server,
      admin.accessToken,
    )(`/api/v1/activity?person=${owner.user.id}`)
    const body = await readJson(asAdmin)
    expect(asAdmin.status).toBe(200)
    expect(body.total_count).toBeGreaterThan(0)
  })
})

describe('the list', () => {
  it('filters by client, resource and time, and pages by keyset cursor', async () => {
    const all = await activity(`?client=${app.clientId}&resource=digital_product`)
    expect(all.total_count).toBeGreaterThan(3)
    const seen: string[] = []
    let cursor: string | null = null
    do {
      const page: Json = await activity(
        `?client=${app.clientId}&resource=digital_product&limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      )
      seen.push(...page.data.map((r: Json) => r.id))
      cursor = page.next_cursor
    } while (cursor)
    expect(seen).toEqual(all.data.map((r: Json) => r.id))
    const future = new Date(Date.now() + 86_400_000).toISOString().replace(/\.\d{3}Z$/, 'Z')
    expect((await activity(`?since=${future}`)).total_count).toBe(0)
    expect((await activity(`?until=${future}`)).total_count).toBeGreaterThan(0)
    expect((await call('/api/v1/activity?since=yesterday')).status).toBe(400)
    expect((await call('/api/v1/activity?cursor=bogus')).status).toBe(400)
    expect((await call('/api/v1/activity?colour=red')).status).toBe(400)
  })
})

describe('history outlives the app', () => {
  it('revoking the grant and deleting the client keep the records', async () => {
    const other = await registerTestClient(server, { client_name: 'Gone Tool' })
    const issued = await issue(server, { person: owner, client: other, scope: SCOPE })
    const made = await apiClient(server, issued.accessToken)('/api/v1/digital_products', {
      method: 'POST',
      json: { title: 'Orphan', price: { amount: 100, currency: 'USD' } },
    })
    expect(made.status).toBe(201)
    await server.deps.grants.revokeGrant(issued.grantId, Date.now())
    await server.deps.clients.delete(other.clientId)
    const [kept] = (await activity(`?client=${other.clientId}`)).data
    expect(kept).toMatchObject({ client_name: 'Gone Tool', grant_id: issued.grantId })
  })

  it('the sweeper trims what is older than the retention (90 days)', async () => {
    const old = Date.now() - 91 * 86_400_000
    await db()
      .insertInto('activity')
      .values({
        id: 'act_ancient',
        created_at: old,
        updated_at: old,
        user_id: owner.user.id,
        client_id: app.clientId,
        client_name: null,
        client_url: null,
        grant_id: grantId,
        operation: 'courses.update',
        record_type: 'course',
        record_id: 'crs_ancient',
        changes: '[]',
      })
      .execute()
    expect((await activity('?record_id=crs_ancient')).total_count).toBe(1)
    await sweep(server.deps)
    expect((await activity('?record_id=crs_ancient')).total_count).toBe(0)
    expect((await activity()).total_count).toBeGreaterThan(0)
  })
})

describe('portico activity', () => {
  it('prints the changes of a client since a time, newest first, as sentences or JSON', async () => {
    const env = {
      DATABASE_URL: databaseUrlOf(server),
      PORTICO_KEY_ENCRYPTION_SECRET: 'test-secret-test-secret-test-secret-0123',
      PORTICO_ISSUER: server.issuer,
    }
    const made = await product('Portrait Lighting Basics')
    await call(`/api/v1/digital_products/${made.id}`, {
      method: 'PATCH',
      json: { price: { amount: 3900, currency: 'USD' } },
    })
    const text = await runCli(
      ['activity', '--client', app.clientId, '--since', '1h', '--limit', '1'],
      env,
    )
    expect(text.stderr).toBe('')
    expect(text.code).toBe(0)
    expect(text.stdout).toContain(
      `Claude Code (${app.clientId})  by ${owner.user.id}: changed the price of “Portrait Lighting Basics” from $49.00 to $39.00`,
    )
    // The refused writes of the client's grants (counted above) close the listing.
    expect(text.stdout).toMatch(
      new RegExp(`refused \\(scope or role\\): 2 writes by ${app.clientId}`),
    )
    // The refused writes of the client's grants (counted above) close the listing.
    expect(text.stdout).toContain(`refused (scope or role): 2 writes by ${app.clientId}`)
    const json = await runCli(['activity', '--client', app.clientId, '--json'], env)
    const records = JSON.parse(json.stdout)
    expect(records[0]).toMatchObject({ operation: 'digital_products.update', record_id: made.id })
    const bad = await runCli(['activity', '--since', 'last tuesday'], env)
    expect(bad.code).not.toBe(0)
    expect(bad.stderr).toMatch(/^portico: .*since/)
  })
})
