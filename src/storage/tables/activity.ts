/** The tables of the activity record, merged into the Schema of schema.ts. */
export interface ActivityTables {
  activity: ActivityTable
  activity_refusals: ActivityRefusalTable
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
}

/** Writes refused to a grant for scope or role, counted rather than kept one by one. */
export interface ActivityRefusalTable {
  grant_id: string
  user_id: string
  client_id: string
  count: number
  last_at: number
}
