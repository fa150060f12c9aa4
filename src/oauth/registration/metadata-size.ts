import { OAuthError } from '../errors.js'
import type { ClientMetadata } from './check-client-metadata.js'

/**
 * What one self-service registration may store, in bytes of UTF-8 JSON: the metadata Portico
 * keeps (redirect URIs, name, scope, grant and response types, …), not the request, whose
 * unknown fields are dropped. With at most 10 redirect URIs of 2000 characters each a
 * registration could otherwise store about 20 KB; open registration must not fill the
 * database faster than its rate limit says.
 */
export const MAX_STORED_METADATA_BYTES = 8 * 1024

/** RFC 7591 §3.2.2 `invalid_client_metadata` when the metadata to store is too large. */
export function checkStoredMetadataSize(metadata: ClientMetadata): ClientMetadata {
  const bytes = Buffer.byteLength(JSON.stringify(metadata), 'utf8')
  if (bytes > MAX_STORED_METADATA_BYTES) {
    throw new OAuthError(
      'invalid_client_metadata',
      `the client metadata takes ${bytes} bytes; at most ${MAX_STORED_METADATA_BYTES} are stored (shorten redirect_uris or client_name)`,
    )
  }
  return metadata
}
