/** The tables of this area, merged into the Schema of schema.ts. */
export interface StorageTables {
  files: FileTable
  file_chunks: FileChunkTable
  digital_products: DigitalProductTable
}

export type FilePurpose =
  | 'course_cover'
  | 'lesson_video'
  | 'lesson_attachment'
  | 'digital_product'
  | 'avatar'
  | 'page_asset'
  | 'logo'
  | 'event_cover'
  | 'post_image'

/** An uploaded file's record; its bytes live in the file store (disk or `file_chunks`). */
export interface FileTable {
  id: string
  /** Sanitised, with an extension that matches `content_type`. */
  filename: string
  /** The sniffed type (the declared one had to agree with the bytes). */
  content_type: string
  size: number
  /** Hex SHA-256 of the bytes. */
  checksum_sha256: string
  purpose: FilePurpose
  visibility: 'public' | 'private'
  width: number | null
  height: number | null
  /** Where the bytes are: `disk` (beside SQLite) or `database` (PostgreSQL `file_chunks`). */
  storage: 'disk' | 'database'
  /** The account that uploaded it (null for seeded files). */
  uploaded_by: string | null
  created_at: number
  updated_at: number
}

/** The bytes of a file kept in PostgreSQL, in 1 MiB chunks (also created on SQLite, unused). */
export interface FileChunkTable {
  file_id: string
  position: number
  data: Buffer
}

export interface DigitalProductTable {
  id: string
  title: string
  slug: string
  description: string | null
  cover_image_url: string | null
  status: 'draft' | 'published' | 'archived'
  visibility: 'public' | 'unlisted'
  /** JSON Money `{amount, currency}`; `price_amount` and `currency` repeat it for queries. */
  price: string
  price_amount: number
  currency: string
  /** JSON Money or null. */
  compare_at_price: string | null
  /** JSON `[{file_id, name, content_type, size}]`. */
  files: string
  download_limit: number | null
  access_days: number | null
  license_text: string | null
  published_at: number | null
  created_at: number
  updated_at: number
}
