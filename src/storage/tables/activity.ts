/** The tables of the activity record, merged into the Schema of schema.ts. */
export interface ActivityTables {
  activity: ActivityTable
  activity_refusals: ActivityRefusalTable
  approvals: ApprovalTable
  approval_policies: ApprovalPolicyTable
}

/**
 * One change made with an access token (issue 21). Client name and URL are copies taken at
 * the time: the client's row may be gone later, its history stays.
 */
export interface ActivityTable {
  id: string
  created_at: number
  /** Equal to `created_at`: a record never changes. */
  updated_at: number
  user_id: string
  client_id: string
  client_name: string | null
  /** The metadata document URL of a Client ID Metadata Document client. */
  client_url: string | null
  grant_id: string
  /** The operation's name, e.g. `courses.update`. */
  operation: string
  /** The record's `object` (`course`), when the change has one. */
  record_type: string | null
  record_id: string | null
  /** JSON: the changed fields, `[{ field, before?, after? }]` (values only where safe). */
  changes: string
  /** The approval a confirmed change ran under (issue 35); null when none was needed. */
  approval_id: string | null
  /** The user id of whoever said yes. */
  approved_by: string | null
  approved_at: number | null
}

/** Writes refused to a grant for scope or role, counted rather than kept one by one. */
export interface ActivityRefusalTable {
  grant_id: string
  user_id: string
  client_id: string
  count: number
  last_at: number
}

/** How a write is confirmed: not at all, by the token's person, or by an owner or admin. */
export type ConfirmationLevel = 'none' | 'person' | 'owner'

export type ApprovalStatus = 'pending' | 'approved' | 'refused' | 'used' | 'expired'

/**
 * A call held for a yes (issue 35): bound to its grant, operation and a digest of its
 * arguments; single use, short-lived.
 */
export interface ApprovalTable {
  id: string
  grant_id: string
  client_id: string
  /** The person the token acts for. */
  user_id: string
  operation: string
  /** SHA-256 (hex) of the canonical JSON of params, query and body. */
  arguments_digest: string
  level: ConfirmationLevel
  status: ApprovalStatus
  /** What will happen, in the person's words. */
  description: string
  created_at: number
  expires_at: number
  decided_by: string | null
  decided_at: number | null
  used_at: number | null
}

/** An owner's confirmation setting for one operation, replacing its default. */
export interface ApprovalPolicyTable {
  operation: string
  level: ConfirmationLevel
  updated_at: number
}
