import { hiddenCharacter } from '../platform/visible-text.js'
import type { ProfileChanges, User } from '../storage/users.js'
import { type FieldError, timestamp, validationFailed } from './conventions.js'

const TEAM_ROLES = new Set(['owner', 'admin', 'editor', 'lecturer', 'teaching_assistant'])

/** Notification switches a person can set; staff-only ones are ignored for learners. */
export const NOTIFICATION_KEYS = [
  'new_order',
  'new_comment',
  'new_student',
  'weekly_summary',
  'product_news',
] as const

const DEFAULT_NOTIFICATIONS: Record<string, boolean> = {
  new_order: true,
  new_comment: true,
  new_student: false,
  weekly_summary: true,
  product_news: false,
}

/** The `account` object: the signed-in person's own profile (DOMAIN.md §4.3.20). */
export function accountView(user: User): Record<string, unknown> {
  return {
    id: user.id,
    object: 'account',
    email: user.email,
    email_verified: true,
    name: user.name,
    avatar_url: user.avatarUrl ?? null,
    locale: user.locale ?? null,
    timezone: user.timezone ?? null,
    bio: user.bio ?? null,
    kind: TEAM_ROLES.has(user.role) ? 'staff' : 'learner',
    role: user.role,
    notification_preferences: { ...DEFAULT_NOTIFICATIONS, ...user.notificationPreferences },
    created_at: timestamp(user.createdAt),
    updated_at: timestamp(user.updatedAt),
  }
}

const WRITABLE = new Set([
  'name',
  'avatar_url',
  'locale',
  'timezone',
  'bio',
  'notification_preferences',
])
const LOCALE = /^[a-zA-Z]{2,3}(-[a-zA-Z0-9]{2,8})*$/
let timezones: ReadonlySet<string> | undefined

/**
 * Checks a PATCH of the account (JSON merge semantics: absent fields stay, null clears).
 * Unknown and read-only fields are refused, never ignored.
 */
export function checkAccountPatch(body: Record<string, unknown>): ProfileChanges {
  const errors: FieldError[] = []
  const changes: { -readonly [K in keyof ProfileChanges]: ProfileChanges[K] } = {}
  for (const key of Object.keys(body)) {
    if (!WRITABLE.has(key))
      errors.push({ field: key, code: 'unknown_field', message: `${key} cannot be changed here` })
  }
  const text = (key: string, max: number, nullable: boolean): string | null | undefined => {
    const value = body[key]
    if (value === undefined) return undefined
    if (value === null && nullable) return null
    if (typeof value !== 'string') {
      errors.push({
        field: key,
        code: 'invalid_type',
        message: `${key} must be a string${nullable ? ' or null' : ''}`,
      })
      return undefined
    }
    // Line breaks and tabs belong in a bio; nowhere else is a control character wanted.
    const checked = key === 'bio' ? value.replace(/[\n\t]/g, '') : value
    if (/[\p{Cc}\u202a-\u202e\u2066-\u2069]/u.test(checked)) {
      errors.push({
        field: key,
        code: 'invalid_characters',
        message: `${key} must not contain control characters`,
      })
      return undefined
    }
    if ([...value].length > max) {
      errors.push({
        field: key,
        code: 'too_long',
        message: `${key} must be at most ${max} characters`,
      })
      return undefined
    }
    return value
  }

  const name = text('name', 100, false)
  if (typeof name === 'string') {
    const hidden = hiddenCharacter(name)
    if (name.trim() === '')
      errors.push({ field: 'name', code: 'required', message: 'name must not be blank' })
    else if (hidden)
      errors.push({
        field: 'name',
        code: 'invalid_characters',
        message: `name must not contain invisible or formatting characters (found ${hidden})`,
      })
    else changes.name = name.trim()
  }
  const avatar = text('avatar_url', 2000, true)
  if (avatar !== undefined) {
    if (avatar !== null && !/^https:\/\/[^\s]+$/.test(avatar))
      errors.push({
        field: 'avatar_url',
        code: 'invalid_url',
        message: 'avatar_url must be an https URL',
      })
    else changes.avatarUrl = avatar
  }
  const locale = text('locale', 35, true)
  if (locale !== undefined) {
    if (locale !== null && !LOCALE.test(locale))
      errors.push({
        field: 'locale',
        code: 'invalid_locale',
        message: 'locale must be a BCP 47 language tag such as en or pt-BR',
      })
    else changes.locale = locale
  }
  const timezone = text('timezone', 64, true)
  if (timezone !== undefined) {
    timezones ??= new Set([...Intl.supportedValuesOf('timeZone'), 'UTC'])
    if (timezone !== null && !timezones.has(timezone))
      errors.push({
        field: 'timezone',
        code: 'invalid_timezone',
        message: 'timezone must be an IANA time zone such as Europe/Berlin',
      })
    else changes.timezone = timezone
  }
  const bio = text('bio', 2000, true)
  if (bio !== undefined) changes.bio = bio

  const prefs = body.notification_preferences
  if (prefs !== undefined) {
    if (typeof prefs !== 'object' || prefs === null || Array.isArray(prefs)) {
      errors.push({
        field: 'notification_preferences',
        code: 'invalid_type',
        message: 'notification_preferences must be an object of booleans',
      })
    } else {
      const result: Record<string, boolean> = {}
      for (const [key, value] of Object.entries(prefs)) {
        if (!(NOTIFICATION_KEYS as readonly string[]).includes(key)) {
          errors.push({
            field: `notification_preferences.${key}`,
            code: 'unknown_field',
            message: `unknown notification ${key}`,
          })
        } else if (typeof value !== 'boolean') {
          errors.push({
            field: `notification_preferences.${key}`,
            code: 'invalid_type',
            message: `${key} must be true or false`,
          })
        } else result[key] = value
      }
      changes.notificationPreferences = result
    }
  }
  if (errors.length > 0) throw validationFailed(errors)
  return changes
}
