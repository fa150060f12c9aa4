import type { ResourceDefinition } from '../../../src/api/framework/resource.js'
import type { Role } from '../../../src/oauth/roles.js'
import type { TestServer } from '../../support/server.js'

/** What the shared checks need to know about a resource beyond its declaration. */
export interface ConventionSpec {
  readonly resource: ResourceDefinition
  /** A valid create body; `n` makes unique values unique. Collections only. */
  readonly sample?: (n: number) => Record<string, unknown>
  /**
   * Makes a record directly in the server's database and returns its id, for resources the
   * API does not create (orders, comments); `publish` asks for one the public may see.
   */
  readonly fixture?: (server: TestServer, n: number, publish: boolean) => Promise<string>
  /** A valid partial update (resources that can be updated). */
  readonly update?: Record<string, unknown>
  /** A write with one invalid field, and that field's name (resources that can be updated). */
  readonly invalid?: { readonly body: Record<string, unknown>; readonly field: string }
  /** A team role whose token, even asking for the write scope, may not write. */
  readonly deniedRole?: Role
  /** Where records are created, when not the collection itself (under a parent). */
  readonly createPath?: () => string
  /** Makes a freshly created record public (publish it), for resources hiding new records. */
  readonly makePublic?: (id: string, token: string) => Promise<void>
}
