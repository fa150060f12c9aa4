import type { Kysely } from 'kysely'
import { initial } from './0001-initial.js'
import { peopleAndGrants } from './0002-people-and-grants.js'
import { schoolResources } from './0003-school-resources.js'
import { unloggedRateLimits } from './0004-unlogged-rate-limits.js'
import { commerce } from './0005-commerce.js'
import { events } from './0006-events.js'
import { memberships } from './0007-memberships.js'
import { storage } from './0008-storage.js'
import { community } from './0009-community.js'
import { postCategories } from './0010-post-categories.js'
import { refundLines } from './0011-refund-lines.js'
import { ownershipWithinRoles } from './0012-ownership-within-roles.js'
import { clientIdMetadataDocuments } from './0013-client-id-metadata-documents.js'
import { unauthenticatedWriteBounds } from './0014-unauthenticated-write-bounds.js'
import { activity } from './0015-activity.js'
import { approvals } from './0016-approvals.js'

/** One schema change; `up` runs inside the migration transaction. */
export interface Migration {
  readonly id: string
  up(db: Kysely<unknown>, dialect: 'sqlite' | 'postgres'): Promise<void>
}

/** Every migration, oldest first. Never edit one that has shipped: add the next. */
export const migrations: readonly Migration[] = [
  initial,
  peopleAndGrants,
  schoolResources,
  unloggedRateLimits,
  commerce,
  events,
  memberships,
  storage,
  community,
  postCategories,
  refundLines,
  ownershipWithinRoles,
  clientIdMetadataDocuments,
  unauthenticatedWriteBounds,
  activity,
  approvals,
]
