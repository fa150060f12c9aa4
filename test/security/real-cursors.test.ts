import { describe, expect, it } from 'vitest'
import { sortableOf } from '../../src/api/framework/list-params.js'
import { pathOf } from '../../src/api/framework/resource.js'
import { RESOURCES } from '../../src/api/registry.js'
import { useDemoServer } from '../support/demo.js'
import { readJson } from '../support/http.js'
import { issue } from '../support/token-lifecycle.js'

/**
 * The other side of "every crafted cursor is a 400": every cursor the server gives out is
 * taken back. Refusing crafted cursors once refused the ones given out for a sort on money
 * (`?sort=total` on orders: an amount column, an object in the API), so this walks every
 * sortable field of every list, both directions, over the demo school, following
 * next_cursor.
 */

const demo = useDemoServer()
const READ_SCOPES = [...new Set(RESOURCES.map((r) => r.scopes.read))].join(' ')

describe('a cursor the server gave out is accepted back', () => {
  it('follows next_cursor for every sortable field of every list, ascending and descending', async () => {
    const server = demo()
    const reader = await issue(server, { role: 'owner', scope: READ_SCOPES })
    const lists = RESOURCES.filter((r) => r.operations.includes('list') && !r.singleton)
    const refused: string[] = []
    let followed = 0
    for (const resource of lists)
      for (const field of sortableOf(resource))
        for (const sort of [field, `-${field}`]) {
          let url: string | undefined = `${pathOf(resource)}?sort=${sort}&limit=2`
          for (let page = 0; url && page < 3; page++) {
            const response = await server.fetch(url, {
              headers: { authorization: `Bearer ${reader.accessToken}` },
            })
            const body = await readJson(response)
            if (response.status !== 200) {
              refused.push(`${url}: ${response.status} ${JSON.stringify(body.errors ?? body)}`)
              break
            }
            if (page > 0) followed++
            url = body.next_cursor
              ? `${pathOf(resource)}?sort=${sort}&limit=2&cursor=${encodeURIComponent(body.next_cursor)}`
              : undefined
          }
        }
    expect(refused).toEqual([])
    // The demo school has more than two records in most lists: cursors were really followed.
    expect(followed).toBeGreaterThan(50)
  })
})
