/** The tables of this area, merged into the Schema of schema.ts. */
export type MembershipTables = Record<never, never>
