import type { FieldError } from '../conventions.js'
import { checkStorable, enumeration, type Field, fail, text, url } from '../framework/fields.js'
import { defineResource } from '../framework/resource.js'
import { list, object, structure } from '../framework/structures.js'
import { schoolWide } from '../people/owners.js'
import { findCssProblem } from './custom-css.js'

const hex = (fallback: string) =>
  text({
    max: 7,
    pattern: /^#[0-9A-Fa-f]{6}$/,
    patternHint: 'a hex colour such as #1F6FEB',
    default: fallback,
  })

const FONTS = ['system', 'inter', 'merriweather', 'lora', 'roboto', 'source_sans', 'playfair']

const COLORS = {
  primary: '#1F6FEB',
  accent: '#F59E0B',
  background: '#FFFFFF',
  surface: '#F6F8FA',
  text: '#1F2328',
  link: '#0969DA',
}

const navigationItem: Record<string, Field> = {
  label: text({ required: true, max: 40 }),
  url: url({ nullable: true }),
  target: enumeration(['courses', 'blog', 'events', 'plans'], { nullable: true }),
}

/** The navigation's links: each checked by its members, and needing a url or a target. */
const navigationLinks = list(navigationItem, {
  max: 12,
  noun: 'links',
  check(item, at, errors) {
    if ((item.url ?? null) === null && (item.target ?? null) === null)
      errors.push({ field: at, code: 'required', message: 'a link needs a url or a target' })
  },
})

/** Not a list, or too long a list, is refused with one message (as it always was). */
function checkNavigation(value: unknown, path: string, errors: FieldError[]): unknown {
  if (!Array.isArray(value) || value.length > 12)
    return fail(errors, path, 'type', `${path} must be a list of at most 12 links`)
  return navigationLinks.parse(value, path, errors)
}

/** CSS is rendered into every page: checked token by token (see custom-css.ts). */
function checkCss(value: unknown, path: string, errors: FieldError[]): unknown {
  if (typeof value !== 'string' || value.length > 20_000)
    return fail(errors, path, 'type', `${path} must be a string of at most 20 KB`)
  if (!checkStorable(value, path, errors)) return undefined
  const problem = findCssProblem(value)
  if (problem)
    return fail(
      errors,
      path,
      'unsafe',
      `${path} ${problem.message}${problem.line === undefined ? '' : ` (line ${problem.line})`}`,
    )
  return value
}

/** The theme (DOMAIN.md §4.3.9): public except custom_css; reset restores the defaults. */
export const appearance = defineResource({
  object: 'appearance',
  collection: 'appearance',
  table: 'appearance',
  idPrefix: 'appearance',
  singleton: 'appearance',
  summary: 'The school’s theme',
  scopes: { read: 'appearance:read', write: 'appearance:write' },
  writeRoles: ['owner', 'admin', 'editor'],
  ownership: schoolWide(
    'The school’s one look (theme, custom CSS) belongs to the school, not to a person',
  ),
  operations: ['get', 'update'],
  public: { get: {} },
  fields: {
    logo_url: url({ public: true, nullable: true }),
    logo_dark_url: url({ public: true, nullable: true }),
    favicon_url: url({ public: true, nullable: true }),
    colors: object(Object.fromEntries(Object.entries(COLORS).map(([k, v]) => [k, hex(v)])), {
      public: true,
      default: COLORS,
    }),
    typography: object(
      {
        heading_font: enumeration(FONTS, { default: 'inter' }),
        body_font: enumeration(FONTS, { default: 'inter' }),
      },
      { public: true, default: { heading_font: 'inter', body_font: 'inter' } },
    ),
    color_scheme: enumeration(['light', 'dark', 'auto'], { public: true, default: 'light' }),
    navigation: structure(navigationLinks.schema(), checkNavigation, {
      public: true,
      default: [{ label: 'Courses', target: 'courses' }],
    }),
    footer: object({ text: text({ max: 500, nullable: true }) }, { public: true, nullable: true }),
    course_player_theme: enumeration(['classic', 'theater'], { public: true, default: 'classic' }),
    homepage_layout: enumeration(['standard', 'course_first', 'community_first'], {
      public: true,
      default: 'standard',
    }),
    custom_css: structure(text({ max: 20_000 }).schema(), checkCss, { nullable: true }),
  },
  actions: [
    {
      name: 'reset',
      summary: 'Restore the default theme',
      async run(context, row) {
        const defaults = Object.fromEntries(
          Object.entries(appearance.fields).map(([name, field]) => [
            name,
            field.options.default === undefined ? null : field.toColumn(field.options.default),
          ]),
        )
        await context.db
          .updateTable('appearance')
          .set({ ...defaults, updated_at: context.now })
          .where('id', '=', row.id)
          .execute()
        return row.id
      },
    },
  ],
})
