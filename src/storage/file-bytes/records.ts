import { createHash } from 'node:crypto'
import type { Db } from '../schema.js'
import type { FilePurpose, FileTable } from '../tables/storage.js'
import { PURPOSES, sanitizeFilename } from './policy.js'
import { imageSize } from './sniff.js'
import type { FileStore } from './store.js'

export interface NewFile {
  readonly id: string
  readonly bytes: Buffer
  /** The agreed (sniffed) type. */
  readonly contentType: string
  readonly filename: string | undefined
  readonly purpose: FilePurpose
  readonly visibility?: 'public' | 'private'
  readonly uploadedBy: string | null
  readonly now: number
}

/** The record of a file about to be stored: checksum, size, clean filename, image size. */
export function fileRecord(file: NewFile, storage: FileStore['kind']): FileTable {
  const size = imageSize(file.contentType, file.bytes)
  return {
    id: file.id,
    filename: sanitizeFilename(file.filename, file.contentType),
    content_type: file.contentType,
    size: file.bytes.length,
    checksum_sha256: createHash('sha256').update(file.bytes).digest('hex'),
    purpose: file.purpose,
    visibility: file.visibility ?? PURPOSES[file.purpose].visibility,
    width: size?.width ?? null,
    height: size?.height ?? null,
    storage,
    uploaded_by: file.uploadedBy,
    created_at: file.now,
    updated_at: file.now,
  }
}

/**
 * Stores a file: its bytes in the store and its row. On PostgreSQL both in one transaction
 * (or the caller's); on disk the bytes first, removed again if the row cannot be written.
 */
export async function saveFile(db: Db, store: FileStore, file: NewFile): Promise<FileTable> {
  const row = fileRecord(file, store.kind)
  if (store.kind === 'database') {
    const write = async (trx: Db) => {
      await trx.insertInto('files').values(row).execute()
      await store.put(trx, row.id, file.bytes)
    }
    if (db.isTransaction) await write(db)
    else await db.transaction().execute(write)
    return row
  }
  await store.put(db, row.id, file.bytes)
  try {
    await db.insertInto('files').values(row).execute()
  } catch (error) {
    await store.remove(db, row.id)
    throw error
  }
  return row
}

/** Removes a file's row, then its bytes (on PostgreSQL the chunks go with the row). */
export async function deleteFile(db: Db, store: FileStore, id: string): Promise<void> {
  await db.deleteFrom('files').where('id', '=', id).execute()
  await store.remove(db, id)
}
