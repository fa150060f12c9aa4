import type { ApiArea } from '../area.js'
import { digitalProducts } from '../catalogue/digital-products.resource.js'
import { fileEndpoints } from './uploads.js'

/**
 * The API's storage area (/api/v1/storage, DOMAIN.md §4.3.17): the school's files, uploaded
 * and deleted here and served at their URL, and the digital products built on them (§4.3.15).
 * Not to be confused with src/storage, the database layer, whose files/ keeps the bytes.
 */
export const storageArea: ApiArea = { resources: [digitalProducts], endpoints: fileEndpoints }
