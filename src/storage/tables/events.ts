/** The tables of this area, merged into the Schema of schema.ts. */
export type EventTables = Record<never, never>
