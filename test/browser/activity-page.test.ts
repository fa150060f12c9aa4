import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { apiClient } from '../http/api-resources/conventions.js'
import { collectPageErrors, launchBrowser, saveScreenshot } from '../support/browser.js'
import { createPerson, registerTestClient, type TestPerson } from '../support/flow.js'
import { readJson } from '../support/http.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { issue } from '../support/token-lifecycle.js'

// The activity record on /account (issue 21): a long history on a phone, without JavaScript,
// with an app whose name looks like a script.

const SCRIPT_NAME = '<img src=x onerror="window.pwned=1">Claude Code<script>window.pwned=2</script>'
const SCRIPT_TITLE = '<script>window.pwned=3</script>Portrait'
let server: TestServer
let browser: Browser
let owner: TestPerson
let lecturer: TestPerson

beforeAll(async () => {
  server = await startTestServer()
  browser = await launchBrowser()
  owner = await createPerson(server, 'owner')
  lecturer = await createPerson(server, 'lecturer')
  // The owner's app: a long history of price changes of one product.
  const app = await registerTestClient(server, { client_name: SCRIPT_NAME })
  const { accessToken } = await issue(server, {
    person: owner,
    client: app,
    scope: 'digital_products:read digital_products:write',
  })
  const call = apiClient(server, accessToken)
  const made = await readJson(
    await call('/api/v1/digital_products', {
      method: 'POST',
      json: { title: 'Portrait <b>Lighting</b>', price: { amount: 4900, currency: 'USD' } },
    }),
  )
  // The first two also rename it, to a title that looks like a script, and back.
  const titles = [SCRIPT_TITLE, 'Portrait <b>Lighting</b>']
  for (let i = 0; i < 44; i += 1)
    expect(
      (
        await call(`/api/v1/digital_products/${made.id}`, {
          method: 'PATCH',
          json: {
            price: { amount: i % 2 === 0 ? 3900 : 4900, currency: 'USD' },
            ...(titles[i] && { title: titles[i] }),
          },
        })
      ).status,
    ).toBe(200)
  // The lecturer's own app, one change.
  const notes = await registerTestClient(server, { client_name: 'Lecture Notes Helper' })
  const mine = await issue(server, { person: lecturer, client: notes, scope: 'account:write' })
  const account = await apiClient(server, mine.accessToken)('/api/v1/account', {
    method: 'PATCH',
    json: { bio: 'Teaches light' },
  })
  expect(account.status).toBe(200)
  // One write beyond its scope: refused, and counted beside the app.
  const refused = await apiClient(server, mine.accessToken)(`/api/v1/digital_products/${made.id}`, {
    method: 'PATCH',
    json: { title: 'Not mine' },
  })
  expect(refused.status).toBe(403)
})
afterAll(async () => {
  await browser?.close()
  await server?.close()
})

/** A phone-sized page without JavaScript, signed in as `person`. */
async function phonePage(person: TestPerson): Promise<Page> {
  const context = await browser.newContext({
    javaScriptEnabled: false,
    viewport: { width: 375, height: 740 },
    isMobile: true,
  })
  context.setDefaultTimeout(20_000)
  const page = await context.newPage()
  await page.goto(`${server.issuer}/login?return_to=/account`)
  await page.fill('#email', person.email)
  await page.fill('#password', person.password)
  await page.click('button[type=submit].primary')
  await page.goto(`${server.issuer}/account`)
  return page
}

const entries = (page: Page) => page.locator('#activity .activity-list li')
const noOverflow = (page: Page) =>
  page.evaluate<boolean>('document.documentElement.scrollWidth <= window.innerWidth')

describe('the activity section of /account', () => {
  it('an owner pages through every app’s history on a phone, without JavaScript', async () => {
    const page = await phonePage(owner)
    const errors = collectPageErrors(page)
    await expect(page.locator('#activity h2').textContent()).resolves.toMatch(/every app/)
    await expect(entries(page).count()).resolves.toBe(20)
    // Newest first: the lecturer's change, named with whose app it is.
    const [newest = '', second = ''] = (await entries(page).allTextContents()).map((t) =>
      t.replace(/\s+/g, ' '),
    )
    expect(newest).toContain(`Lecture Notes Helper (${lecturer.user.name}) changed the bio of`)
    // Then the owner's app: its last change set the price back to $49.00; its name is text.
    expect(second).toContain(SCRIPT_NAME.replace(/\s+/g, ' '))
    expect(second).toContain(
      'changed the price of “Portrait <b>Lighting</b>” from $39.00 to $49.00, just now',
    )
    expect(await page.locator('#activity img, #activity script, #activity b').count()).toBe(0)
    expect(await noOverflow(page)).toBe(true)
    await saveScreenshot(page, 'activity-phone')

    // Older pages by plain links, then back to the newest.
    const seen = new Set<string>()
    for (const text of await entries(page).allTextContents()) seen.add(text)
    await page.getByRole('link', { name: 'Older changes' }).click()
    await expect(entries(page).count()).resolves.toBe(20)
    await page.getByRole('link', { name: 'Older changes' }).click()
    await expect(entries(page).count()).resolves.toBe(6)
    const oldest = (await entries(page).allTextContents()).map((t) => t.replace(/\s+/g, ' '))
    expect(oldest.at(-1)).toMatch(/created the digital product “Portrait <b>Lighting<\/b>”/)
    // A rename says from what to what, its titles as text.
    expect(oldest.at(-2)).toContain(
      `renamed the digital product “Portrait <b>Lighting</b>” to “${SCRIPT_TITLE}” and changed its price from $49.00 to $39.00`,
    )
    expect(oldest.at(-3)).toContain(
      `renamed the digital product “${SCRIPT_TITLE}” to “Portrait <b>Lighting</b>” and changed its price from $39.00 to $49.00`,
    )
    expect(await page.locator('#activity img, #activity script, #activity b').count()).toBe(0)
    expect(await page.getByRole('link', { name: 'Older changes' }).count()).toBe(0)
    await page.getByRole('link', { name: 'Newest' }).click()
    await expect(entries(page).count()).resolves.toBe(20)

    expect(errors).toEqual([])
    await page.context().close()
  })

  it('anyone else sees only their own apps, and one app’s history through its link', async () => {
    const page = await phonePage(lecturer)
    await expect(page.locator('#activity h2').textContent()).resolves.toMatch(/of your apps/)
    await expect(entries(page).count()).resolves.toBe(1)
    const only = ((await entries(page).first().textContent()) ?? '').replace(/\s+/g, ' ')
    expect(only).toContain('Lecture Notes Helper changed the bio of “')
    await expect(page.locator('.refused').textContent()).resolves.toBe('1 write refused')
    expect(await page.locator('#activity').textContent()).not.toContain('Claude Code')
    await page.getByRole('link', { name: 'Activity' }).first().click()
    expect(new URL(page.url()).searchParams.get('app')).not.toBeNull()
    await expect(page.locator('#activity h2').textContent()).resolves.toMatch(
      /of Lecture Notes Helper/,
    )
    expect(await noOverflow(page)).toBe(true)
    // A forged cursor shows the newest page instead of an error.
    const forged = await page.goto(`${server.issuer}/account?cursor=bogus`)
    expect(forged?.status()).toBe(200)
    await page.context().close()
  })
})
