import type { AppDeps } from '../../app-deps.js'
import type { Role } from '../../oauth/roles.js'
import {
  ACCEPTED_TYPES,
  isPurpose,
  PURPOSE_NAMES,
  PURPOSES,
} from '../../storage/file-bytes/policy.js'
import type { FilePurpose } from '../../storage/tables/storage.js'
import type { TokenCaller } from '../caller.js'
import { type FieldError, validationFailed } from '../conventions.js'
import { ProblemError } from '../problem.js'

/** Who may upload: the roles that can be granted storage:write (lecturers attach lesson files). */
const WRITE_ROLES: readonly Role[] = ['owner', 'admin', 'editor', 'lecturer']

/** A caller holding storage:write must also have a role that may change storage. */
export function requireWriteRole(caller: TokenCaller): void {
  if (!WRITE_ROLES.includes(caller.user.role))
    throw new ProblemError(403, {
      code: 'forbidden_role',
      title: 'Forbidden',
      detail: `the ${caller.user.role} role may not change storage`,
    })
}

export const unsupported = (detail: string) =>
  new ProblemError(415, { code: 'unsupported_media_type', title: 'Unsupported Media Type', detail })

export const invalid = (field: string, code: string, message: string) =>
  validationFailed([{ field, code, message }])

/** What an upload says about itself, from the query string, multipart fields or headers. */
export interface Declared {
  purpose?: string
  visibility?: string
  filename?: string
}

/** The largest file `purpose` accepts under the configured overall cap. */
export function capOf(deps: AppDeps, purpose: string | undefined): number {
  const overall = deps.config.uploadMaxBytes
  return isPurpose(purpose) ? Math.min(PURPOSES[purpose].maxBytes, overall) : overall
}

/** Checks the purpose and visibility an upload declared; 422 naming the field. */
export function checkDeclared(declared: Declared): {
  purpose: FilePurpose
  visibility: 'public' | 'private' | undefined
} {
  const errors: FieldError[] = []
  const { purpose, visibility } = declared
  if (!isPurpose(purpose))
    errors.push({
      field: 'purpose',
      code: purpose === undefined ? 'required' : 'enum',
      message: `purpose must be one of ${PURPOSE_NAMES.join(', ')}`,
    })
  if (visibility !== undefined && visibility !== 'public' && visibility !== 'private')
    errors.push({
      field: 'visibility',
      code: 'enum',
      message: 'visibility must be public or private',
    })
  if (errors.length > 0 || !isPurpose(purpose)) throw validationFailed(errors)
  return { purpose, visibility: visibility as 'public' | 'private' | undefined }
}

/** A declared type must be one the purpose accepts (415 otherwise, listing them). */
export function checkType(type: string, purpose: FilePurpose | undefined): void {
  if (type === 'application/octet-stream') return
  const accepted = purpose ? PURPOSES[purpose].types : ACCEPTED_TYPES
  if (!accepted.includes(type))
    throw unsupported(
      `${type} is not accepted${purpose ? ` for ${purpose}` : ''}; send one of ${accepted.join(', ')}`,
    )
}
