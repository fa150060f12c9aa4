import type { Endpoint } from './framework/operation.js'
import type { ResourceDefinition } from './framework/resource.js'

/**
 * One part of the business API: the resources it declares, and the hand-written operations
 * beyond them (sub-resources, uploads, reports), each declared with `defineEndpoint`, which
 * documents it without the application and binds it to the application's dependencies later.
 */
export interface ApiArea {
  readonly resources: readonly ResourceDefinition[]
  readonly endpoints?: readonly Endpoint[]
}
