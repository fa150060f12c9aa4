import { hiddenCharacter } from '../../platform/visible-text.js'
import type { User } from '../../storage/users.js'
import type { FieldError } from '../conventions.js'
import { type Field, fail, field, text, textKeeping } from '../framework/fields.js'
import { shown, view } from '../framework/views.js'

const TEAM_ROLES = new Set(['owner', 'admin', 'editor', 'lecturer', 'teaching_assistant'])

/** Notification switches a person can set; staff-only ones are ignored for learners. */
export const NOTIFICATION_KEYS = [
  'new_order',
  'new_comment',
  'new_student',
  'weekly_summary',
  'product_news',
] as const

const DEFAULT_NOTIFICATIONS: Readonly<Record<string, boolean>> = {
  new_order: true,
  new_comment: true,
  new_student: false,
  weekly_summary: true,
  product_news: false,
}

/**
 * What the `account` object shows of a person, and all {@link accountView} reads: values that
 * compare (no undefined), so an answer made from them can be kept while they stay the same.
 */
export function accountFacts(user: User) {
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    role: user.role,
    avatarUrl: user.avatarUrl ?? null,
    locale: user.locale ?? null,
    timezone: user.timezone ?? null,
    bio: user.bio ?? null,
    notificationPreferences: user.notificationPreferences ?? null,
    createdAt: user.createdAt,
    updatedAt: user.updatedAt,
  }
}

const LOCALE = /^[a-zA-Z]{2,3}(-[a-zA-Z0-9]{2,8})*$/
let timezones: ReadonlySet<string> | undefined

/**
 * A text member of the account: a string without control characters (a bio may hold line
 * breaks and tabs), at most `max` characters, then `check`ed; its schema is text()'s.
 * The activity record keeps its values when it is short text, as for text().
 */
function accountText(
  max: number,
  nullable: boolean,
  check: (value: string, path: string, errors: FieldError[]) => unknown = (value) => value,
): Field {
  return field(
    { nullable },
    {
      schema: text({ max }).schema(),
      activity: textKeeping(max),
      parseQuery: () => undefined,
      parse(value, path, errors) {
        if (typeof value !== 'string')
          return fail(
            errors,
            path,
            'invalid_type',
            `${path} must be a string${nullable ? ' or null' : ''}`,
          )
        const checked = path.endsWith('bio') ? value.replace(/[\n\t]/g, '') : value
        if (/[\p{Cc}\u202a-\u202e\u2066-\u2069]/u.test(checked))
          return fail(
            errors,
            path,
            'invalid_characters',
            `${path} must not contain control characters`,
          )
        if ([...value].length > max)
          return fail(errors, path, 'too_long', `${path} must be at most ${max} characters`)
        return check(value, path, errors)
      },
    },
  )
}

const switches = Object.fromEntries(NOTIFICATION_KEYS.map((key) => [key, shown.boolean()]))

/** The notification switches a write may name (any of them), each on or off. */
const someNotifications = view(switches, { closed: true })

/** The notification switches: known keys, boolean values; merged into the stored ones. */
const notificationPreferences = field(
  {},
  {
    schema: someNotifications.schema,
    parseQuery: () => undefined,
    parse(value, path, errors) {
      if (typeof value !== 'object' || value === null || Array.isArray(value))
        return fail(errors, path, 'invalid_type', `${path} must be an object of booleans`)
      const result: Record<string, boolean> = {}
      for (const [key, on] of Object.entries(value)) {
        if (!(NOTIFICATION_KEYS as readonly string[]).includes(key))
          fail(errors, `${path}.${key}`, 'unknown_field', `unknown notification ${key}`)
        else if (typeof on !== 'boolean')
          fail(errors, `${path}.${key}`, 'invalid_type', `${key} must be true or false`)
        else result[key] = on
      }
      return result
    },
  },
)

/**
 * What a PATCH of the account may change (JSON merge semantics: absent members stay, null
 * clears). Unknown and read-only members are refused, never ignored.
 */
export const ACCOUNT_CHANGES = {
  name: accountText(100, false, (name, path, errors) => {
    const hidden = hiddenCharacter(name)
    if (name.trim() === '') return fail(errors, path, 'required', `${path} must not be blank`)
    if (hidden)
      return fail(
        errors,
        path,
        'invalid_characters',
        `${path} must not contain invisible or formatting characters (found ${hidden})`,
      )
    return name.trim()
  }),
  avatar_url: accountText(2000, true, (url, path, errors) =>
    /^https:\/\/[^\s]+$/.test(url)
      ? url
      : fail(errors, path, 'invalid_url', `${path} must be an https URL`),
  ),
  locale: accountText(35, true, (locale, path, errors) =>
    LOCALE.test(locale)
      ? locale
      : fail(
          errors,
          path,
          'invalid_locale',
          `${path} must be a BCP 47 language tag such as en or pt-BR`,
        ),
  ),
  timezone: accountText(64, true, (timezone, path, errors) => {
    timezones ??= new Set([...Intl.supportedValuesOf('timeZone'), 'UTC'])
    return timezones.has(timezone)
      ? timezone
      : fail(
          errors,
          path,
          'invalid_timezone',
          `${path} must be an IANA time zone such as Europe/Berlin`,
        )
  }),
  bio: accountText(2000, true),
  notification_preferences: notificationPreferences,
} satisfies Readonly<Record<string, Field>>

type AccountFacts = ReturnType<typeof accountFacts>

/** The notification switches an account shows: every one, the stored ones over the defaults. */
const allNotifications = view(switches, { closed: true, required: NOTIFICATION_KEYS })

/**
 * The `account` object: the signed-in person's own profile (DOMAIN.md §4.3.20). What only
 * a PATCH writes is shown as its field declares it; the name, also written at sign-up, as text.
 */
const account = view<AccountFacts>({
  id: shown.id(),
  object: shown.constant('account'),
  email: shown.string(),
  email_verified: shown.boolean({ from: () => true }),
  name: shown.string(),
  avatar_url: shown.field(ACCOUNT_CHANGES.avatar_url, { from: (facts) => facts.avatarUrl }),
  locale: shown.field(ACCOUNT_CHANGES.locale),
  timezone: shown.field(ACCOUNT_CHANGES.timezone),
  bio: shown.field(ACCOUNT_CHANGES.bio),
  kind: shown.string({
    enum: ['staff', 'learner'],
    from: (facts) => (TEAM_ROLES.has(facts.role) ? 'staff' : 'learner'),
  }),
  role: shown.string(),
  notification_preferences: shown.object(allNotifications, {
    from: (facts) => ({ ...DEFAULT_NOTIFICATIONS, ...facts.notificationPreferences }),
  }),
  created_at: shown.time({ from: (facts) => facts.createdAt }),
  updated_at: shown.time({ from: (facts) => facts.updatedAt }),
})

/** The JSON of the `account` object. */
export const accountView = (user: User) => account.show(accountFacts(user))

/** The JSON Schema of {@link accountView}. */
export const accountSchema = account.schema
