import type { FieldError } from '../conventions.js'
import {
  enumeration,
  type Field,
  fail,
  html,
  integer,
  type JsonSchema,
  reference,
  text,
  url,
} from '../framework/fields.js'
import { checkMembers, list, membersSchema } from '../framework/structures.js'

/**
 * The blocks a page is built from (DOMAIN.md §4.3.19), each with the props it takes. A
 * value is checked and sanitised by what its declaration says it is (HTML through the HTML
 * allow-list, text as text, links as http(s) URLs or site paths, ids by prefix), never by
 * its key's name; an undeclared prop or a value of the wrong shape is refused with 422.
 * The same declarations produce the OpenAPI schema of `blocks`.
 */

const MAX_BLOCKS = 100
const MAX_PROPS_JSON = 50_000

/** A list of ids of one resource (`crs_…`), without duplicates. */
const idList = (prefix: string, max: number): Field =>
  list(reference(prefix), {
    max,
    noun: `ids starting with ${prefix}_`,
    dropRepeats: true,
    nullable: true,
  })

/** A list of objects made of member fields (testimonials, questions). */
const objectList = (members: Record<string, Field>, max: number): Field =>
  list(members, { max, noun: 'entries', nullable: true })

/** Where a button or image leads: an http(s) URL or a path on the school's site. */
const link = (options: { required?: boolean } = {}) =>
  text({
    ...options,
    nullable: !options.required,
    max: 2000,
    pattern: /^(https?:\/\/[^\s]+|\/(?![/\\])[^\s]*)$/,
    patternHint: 'an http(s) URL or a path on the site such as /courses',
  })

const heading = () => text({ max: 200, nullable: true })
const label = (required = false) => text({ max: 60, required, nullable: !required })
const caption = () => text({ max: 300, nullable: true })
const count = () => integer({ min: 1, max: 24, nullable: true })

/** Every block type and its props. */
export const BLOCKS = {
  hero: {
    heading: heading(),
    subheading: text({ max: 500, nullable: true }),
    image_url: url({ nullable: true }),
    button_label: label(),
    button_url: link(),
    alignment: enumeration(['left', 'center'], { nullable: true }),
  },
  rich_text: { html: html({ required: true, max: 50_000 }) },
  image: {
    image_url: url({ required: true }),
    alt: text({ max: 300, nullable: true }),
    caption: caption(),
    link_url: link(),
  },
  video: { video_url: url({ required: true }), title: heading(), caption: caption() },
  course_grid: {
    heading: heading(),
    course_ids: idList('crs', 24),
    category_id: reference('cat', { nullable: true }),
    limit: count(),
  },
  course_card: { course_id: reference('crs', { required: true }) },
  pricing_table: {
    heading: heading(),
    plan_ids: idList('mpl', 12),
    course_id: reference('crs', { nullable: true }),
  },
  lecturer_grid: { heading: heading(), lecturer_ids: idList('lec', 24) },
  testimonials: {
    heading: heading(),
    items: objectList(
      {
        quote: text({ required: true, max: 1000 }),
        author: text({ required: true, max: 100 }),
        role: text({ max: 100, nullable: true }),
        avatar_url: url({ nullable: true }),
      },
      20,
    ),
  },
  faq: {
    heading: heading(),
    items: objectList(
      {
        question: text({ required: true, max: 200 }),
        answer: html({ required: true, max: 5000 }),
      },
      30,
    ),
  },
  cta: {
    heading: heading(),
    body: html({ max: 5000, nullable: true }),
    button_label: label(true),
    button_url: link({ required: true }),
  },
  form: {
    form_id: reference('frm', { required: true }),
    heading: heading(),
    submit_label: label(),
  },
  event_list: {
    heading: heading(),
    event_ids: idList('evt', 24),
    when: enumeration(['upcoming', 'past'], { nullable: true }),
    limit: count(),
  },
  html: { html: html({ required: true, max: 50_000 }) },
} satisfies Record<string, Record<string, Field>>

export type BlockType = keyof typeof BLOCKS

export const BLOCK_TYPES = Object.keys(BLOCKS) as BlockType[]

const isBlockType = (value: unknown): value is BlockType =>
  typeof value === 'string' && Object.hasOwn(BLOCKS, value)

const props = (type: BlockType): Record<string, Field> => BLOCKS[type]

/** The JSON Schema of `blocks`: one alternative per block type, with its declared props. */
export function blocksSchema(): JsonSchema {
  return {
    type: 'array',
    maxItems: MAX_BLOCKS,
    items: {
      oneOf: BLOCK_TYPES.map((type) => {
        const members = props(type)
        const hasRequired = Object.values(members).some((f) => f.options.required)
        return {
          title: type,
          type: 'object',
          additionalProperties: false,
          required: hasRequired ? ['type', 'props'] : ['type'],
          properties: { type: { const: type }, props: membersSchema(members) },
        }
      }),
    },
  }
}

/** Checks a page's blocks: each block's type, then its props against that type's declaration. */
export function checkBlocks(value: unknown, path: string, errors: FieldError[]): unknown {
  if (!Array.isArray(value) || value.length > MAX_BLOCKS)
    return fail(errors, path, 'type', `${path} must be a list of at most ${MAX_BLOCKS} blocks`)
  return value.map((block, i) => {
    const at = `${path}[${i}]`
    if (typeof block !== 'object' || block === null || Array.isArray(block))
      return fail(errors, at, 'type', `${at} must be an object with a type and props`)
    const item = block as Record<string, unknown>
    for (const key of Object.keys(item))
      if (key !== 'type' && key !== 'props')
        fail(errors, `${at}.${key}`, 'unknown_field', `${key} is not a block member`)
    if (!isBlockType(item.type))
      return fail(errors, `${at}.type`, 'enum', `type must be one of ${BLOCK_TYPES.join(', ')}`)
    const given = item.props ?? {}
    if (JSON.stringify(given).length > MAX_PROPS_JSON)
      return fail(errors, `${at}.props`, 'too_long', 'props must be at most 50 KB')
    const checked = checkMembers(props(item.type), given, `${at}.props`, errors)
    return { type: item.type, props: checked ?? {} }
  })
}
