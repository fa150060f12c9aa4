import type { FilePurpose } from '../tables/storage.js'
import { hasControlCharacters } from './sniff.js'

const MB = 1024 * 1024

const IMAGES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const
const TEXT = ['text/plain', 'text/csv'] as const

/** Every type an upload may have; markup (HTML, SVG, XML) and scripts are never among them. */
export const ACCEPTED_TYPES: readonly string[] = [
  ...IMAGES,
  'application/pdf',
  'application/zip',
  'video/mp4',
  ...TEXT,
]

/** What each purpose accepts, up to which size, and who sees it unless the upload says. */
export interface PurposeRule {
  readonly types: readonly string[]
  readonly maxBytes: number
  readonly visibility: 'public' | 'private'
}

export const PURPOSES: Readonly<Record<FilePurpose, PurposeRule>> = {
  course_cover: { types: IMAGES, maxBytes: 10 * MB, visibility: 'public' },
  event_cover: { types: IMAGES, maxBytes: 10 * MB, visibility: 'public' },
  post_image: { types: IMAGES, maxBytes: 10 * MB, visibility: 'public' },
  page_asset: { types: [...IMAGES, 'application/pdf'], maxBytes: 10 * MB, visibility: 'public' },
  avatar: { types: IMAGES, maxBytes: 2 * MB, visibility: 'public' },
  logo: { types: IMAGES, maxBytes: 2 * MB, visibility: 'public' },
  lesson_video: { types: ['video/mp4'], maxBytes: 25 * MB, visibility: 'private' },
  lesson_attachment: {
    types: [...IMAGES, 'application/pdf', 'application/zip', ...TEXT],
    maxBytes: 25 * MB,
    visibility: 'private',
  },
  digital_product: {
    types: [...IMAGES, 'application/pdf', 'application/zip', 'video/mp4', ...TEXT],
    maxBytes: 25 * MB,
    visibility: 'private',
  },
}

export const PURPOSE_NAMES = Object.keys(PURPOSES) as FilePurpose[]

export function isPurpose(value: unknown): value is FilePurpose {
  return typeof value === 'string' && Object.hasOwn(PURPOSES, value)
}

/** Names clients use for the accepted types. */
const ALIASES: Readonly<Record<string, string>> = {
  'image/jpg': 'image/jpeg',
  'image/pjpeg': 'image/jpeg',
  'application/x-zip-compressed': 'application/zip',
  'application/x-pdf': 'application/pdf',
}

/** A Content-Type header as a bare, lower-case media type (parameters dropped). */
export function mediaTypeOf(header: string | undefined): string | undefined {
  const type = header?.split(';')[0]?.trim().toLowerCase()
  if (!type) return undefined
  return ALIASES[type] ?? type
}

/**
 * Whether bytes sniffed as `sniffed` may be stored as the `declared` type: the same type, or
 * any text kind for text (CSV is text). `application/octet-stream` declares nothing, and the
 * sniffed type is taken.
 */
export function agreedType(declared: string, sniffed: string | undefined): string | undefined {
  if (sniffed === undefined) return undefined
  if (declared === 'application/octet-stream') return sniffed
  if (declared === sniffed) return declared
  if (sniffed === 'text/plain' && (TEXT as readonly string[]).includes(declared)) return declared
  return undefined
}

/** Images and PDFs may show in the browser (sandboxed); everything else is downloaded. */
export function servedInline(type: string): boolean {
  return (IMAGES as readonly string[]).includes(type) || type === 'application/pdf'
}

/** The Content-Type a file is served with: its stored type, text with its charset. */
export function servedType(type: string): string {
  return type.startsWith('text/') ? `${type}; charset=utf-8` : type
}

const EXTENSIONS: Readonly<Record<string, readonly string[]>> = {
  'image/png': ['.png'],
  'image/jpeg': ['.jpg', '.jpeg'],
  'image/gif': ['.gif'],
  'image/webp': ['.webp'],
  'application/pdf': ['.pdf'],
  'application/zip': ['.zip'],
  'video/mp4': ['.mp4', '.m4v'],
  'text/plain': ['.txt', '.text', '.md', '.log'],
  'text/csv': ['.csv'],
}

/**
 * The most of a name's last segment that is read (its start and its end, where the extension
 * is): a name is stored at 150 characters, and a multipart part may name its file with
 * megabytes.
 */
const NAME_READ = 1024

/**
 * `name` without leading and trailing spaces and dots (its white space already made single
 * spaces). A loop from each end: `[\s.]+$` as a regular expression retries from every
 * position of a long run that does not reach the end, quadratic in the name's length.
 */
function trimSpacesAndDots(name: string): string {
  const trimmed = (c: string | undefined) => c === ' ' || c === '.'
  let start = 0
  let end = name.length
  while (start < end && trimmed(name[start])) start += 1
  while (end > start && trimmed(name[end - 1])) end -= 1
  return name.slice(start, end)
}

/**
 * A filename safe to store and to send in Content-Disposition: the last path segment,
 * without control characters, quotes, separators or reserved characters, at most 150
 * characters, ending in an extension of its content type (`invoice.html` stored as a PNG
 * becomes `invoice.html.png`, so a download never opens as something else).
 */
export function sanitizeFilename(raw: string | undefined, type: string): string {
  const extensions = EXTENSIONS[type] ?? ['.bin']
  const given = raw ?? ''
  // NFC composes nothing with a separator: the last segment is the same before and after.
  let base = given.slice(Math.max(given.lastIndexOf('/'), given.lastIndexOf('\\')) + 1)
  if (base.length > NAME_READ)
    base = `${base.slice(0, NAME_READ / 2)}${base.slice(base.length - NAME_READ / 2)}`
  let name = base
    .normalize('NFC')
    .split('')
    .filter((c) => !hasControlCharacters(c) && !'"*:<>?|;%'.includes(c))
    .join('')
    .replace(/\s+/g, ' ')
  name = trimSpacesAndDots(name)
  if (!name) name = 'file'
  const lower = name.toLowerCase()
  if (!extensions.some((ext) => lower.endsWith(ext) && lower.length > ext.length))
    name = `${name}${extensions[0]}`
  if (name.length > 150) {
    const ext = name.slice(name.lastIndexOf('.'))
    name = `${name.slice(0, 150 - ext.length)}${ext}`
  }
  return name
}

/** RFC 6266 Content-Disposition: an ASCII fallback and the UTF-8 name (RFC 8187). */
export function contentDisposition(kind: 'inline' | 'attachment', filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_')
  const encoded = encodeURIComponent(filename).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  )
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encoded}`
}
