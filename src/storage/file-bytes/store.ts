import { chmodSync, mkdirSync, mkdtempSync, statSync } from 'node:fs'
import { readFile, rename, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { Config } from '../../config.js'
import type { Database } from '../database.js'
import type { Db } from '../schema.js'

/**
 * Where the bytes of uploaded files live. One interface, two places: a folder on the local
 * disk beside SQLite, or the `file_chunks` table on PostgreSQL, so that every instance on
 * the same database serves the same files. Records (the `files` rows) are the caller's.
 */
export interface FileStore {
  readonly kind: 'disk' | 'database'
  /**
   * Keeps the bytes of file `id`. On PostgreSQL they are written through `db`, after the
   * file's row and in the same transaction; on disk `db` is not used.
   */
  put(db: Db, id: string, bytes: Buffer): Promise<void>
  /** The bytes, or undefined when there are none. */
  get(db: Db, id: string): Promise<Buffer | undefined>
  remove(db: Db, id: string): Promise<void>
}

const FILE_ID = /^fil_[A-Za-z0-9_-]{1,64}$/

/** Whether `id` has the form of a file id (`fil_` and up to 64 URL-safe characters). */
export function isFileId(id: string): boolean {
  return FILE_ID.test(id)
}

/** Bytes per row of `file_chunks`. */
const CHUNK = 1024 * 1024

/** Files named by their id in `dir` (mode 0700), written to a temporary name and renamed. */
export function createDiskFileStore(dir: string): FileStore {
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  if ((statSync(dir).mode & 0o077) !== 0) chmodSync(dir, 0o700)
  const pathOf = (id: string) => {
    if (!isFileId(id)) throw new Error(`not a file id: ${id}`)
    return path.join(dir, id)
  }
  return {
    kind: 'disk',
    async put(_db, id, bytes) {
      const target = pathOf(id)
      const temporary = `${target}.${process.pid}.${Date.now()}.tmp`
      await writeFile(temporary, bytes, { mode: 0o600, flag: 'wx' })
      await rename(temporary, target)
    },
    async get(_db, id) {
      try {
        return await readFile(pathOf(id))
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
        throw error
      }
    },
    async remove(_db, id) {
      await rm(pathOf(id), { force: true })
    },
  }
}

/** Files as 1 MiB `bytea` chunks in PostgreSQL (removed with their `files` row). */
export function createDatabaseFileStore(): FileStore {
  return {
    kind: 'database',
    async put(db, id, bytes) {
      for (let position = 0; position * CHUNK < bytes.length || position === 0; position += 1) {
        const data = bytes.subarray(position * CHUNK, (position + 1) * CHUNK)
        await db.insertInto('file_chunks').values({ file_id: id, position, data }).execute()
      }
    },
    async get(db, id) {
      const rows = await db
        .selectFrom('file_chunks')
        .select('data')
        .where('file_id', '=', id)
        .orderBy('position')
        .execute()
      if (rows.length === 0) return undefined
      return Buffer.concat(rows.map((row) => Buffer.from(row.data)))
    },
    async remove(db, id) {
      await db.deleteFrom('file_chunks').where('file_id', '=', id).execute()
    },
  }
}

/**
 * The folder of the disk store: PORTICO_FILES_DIR, else `files/` beside the SQLite file, else
 * (an in-memory database) a fresh temporary folder that lives as long as the process.
 */
export function filesDirOf(config: Config): string {
  if (config.filesDir) return config.filesDir
  const database = config.database
  if (database.dialect === 'sqlite' && database.file !== ':memory:')
    return path.join(path.dirname(database.file), 'files')
  return mkdtempSync(path.join(tmpdir(), 'portico-files-'))
}

const stores = new WeakMap<Database, FileStore>()

/**
 * The file store of an open database, chosen from its engine and made on first use:
 * PostgreSQL keeps bytes in the database, SQLite on the local disk.
 */
export function fileStoreOf(deps: { readonly config: Config; readonly database: Database }) {
  let store = stores.get(deps.database)
  if (!store) {
    store =
      deps.database.dialect === 'postgres'
        ? createDatabaseFileStore()
        : createDiskFileStore(filesDirOf(deps.config))
    stores.set(deps.database, store)
  }
  return store
}
