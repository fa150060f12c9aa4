import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { school } from '../../../src/api/school/school.resource.js'
import { readJson } from '../../support/http.js'
import { startTestServer, type TestServer } from '../../support/server.js'
import { issue } from '../../support/token-lifecycle.js'
import { apiClient, checkConventions } from './conventions.js'

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(async () => {
  await server?.close()
})

describe('/api/v1/school: the conventions', () => {
  checkConventions(() => server, {
    resource: school,
    update: { tagline: 'Learn to see light' },
    invalid: { body: { currency: 'dollars' }, field: 'currency' },
    deniedRole: 'editor',
  })
})

describe('/api/v1/school: its own rules', () => {
  it('merges structured settings on PATCH and hides legal and signup from the public', async () => {
    const { accessToken } = await issue(server, { scope: 'school:read school:write' })
    const call = apiClient(server, accessToken)
    await call('/api/v1/school', {
      method: 'PATCH',
      json: { social_links: { website: 'https://example.com' }, legal: { company_name: 'Acme' } },
    })
    const response = await call('/api/v1/school', {
      method: 'PATCH',
      json: { social_links: { x: 'https://x.com/acme' } },
    })
    const body = await readJson(response)
    expect(body.social_links).toEqual({ website: 'https://example.com', x: 'https://x.com/acme' })
    expect(body.legal).toEqual({ company_name: 'Acme' })
    expect(body.public_url).toBe(server.issuer)
    const anonymous = await readJson(await server.fetch('/api/v1/school'))
    expect(anonymous.social_links).toEqual(body.social_links)
    expect(anonymous).not.toHaveProperty('legal')
    expect(anonymous).not.toHaveProperty('signup')
  })

  it('sanitises HTML written to the description', async () => {
    const { accessToken } = await issue(server, { scope: 'school:read school:write' })
    const response = await apiClient(server, accessToken)('/api/v1/school', {
      method: 'PATCH',
      json: {
        description:
          '<p onclick="steal()">Hi<script>alert(1)</script></p><a href="javascript:x">l</a>',
      },
    })
    const body = await readJson(response)
    expect(body.description).toBe('<p>Hi</p><a href>l</a>')
  })

  it('renames the school in the API index', async () => {
    const { accessToken } = await issue(server, { scope: 'school:write' })
    await apiClient(server, accessToken)('/api/v1/school', {
      method: 'PATCH',
      json: { name: 'Brightframe' },
    })
    expect((await readJson(await server.fetch('/api/v1'))).school).toEqual({ name: 'Brightframe' })
  })
})
