/** The tables of this area, merged into the Schema of schema.ts. */
export type StorageTables = Record<never, never>
