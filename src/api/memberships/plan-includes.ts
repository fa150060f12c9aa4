import { type FieldError, validationFailed } from '../conventions.js'
import { boolean, type Field, type Row, reference } from '../framework/fields.js'
import type { RowOf } from '../framework/resource.js'
import type { ResourceDb } from '../framework/store.js'
import { list, object, structure } from '../framework/structures.js'
import { shown, view } from '../framework/views.js'

interface Includes {
  course_ids: string[]
  digital_product_ids: string[]
  post_access: boolean
  event_access: boolean
}

const NO_INCLUDES: Includes = {
  course_ids: [],
  digital_product_ids: [],
  post_access: false,
  event_access: false,
}

const includesOf = (column: string | null): Includes => ({
  ...NO_INCLUDES,
  ...(JSON.parse(column ?? '{}') as Partial<Includes>),
})

/** A list of ids with a prefix, stored inside `includes` (repeats dropped). */
const idList = (prefix: string, noun: string): Field =>
  list(reference(prefix), { max: 100, noun, dropRepeats: true, default: [] })

/** `includes`: what a plan gives access to. */
export const includesField = () =>
  object(
    {
      course_ids: idList('crs', 'course ids'),
      digital_product_ids: idList('dpr', 'digital product ids'),
      post_access: boolean({ default: false, description: 'Members-only posts' }),
      event_access: boolean({ default: false, description: 'Members-only events' }),
    },
    { public: true, default: NO_INCLUDES },
  )

/** A course or digital product `includes` names, with its title. */
const includedItem = view<Row>({
  id: shown.string(),
  title: shown.string(),
  slug: shown.string(),
  status: shown.string({ description: 'Full view only' }),
})

/** `included`: the courses and digital products of a plan, as `loadIncluded` shows them. */
const included = view<Row>({
  courses: shown.list(includedItem),
  digital_products: shown.list(includedItem),
})

/** `included`: the titles of what `includes` names, loaded by `loadIncluded`. */
export const includedField = () =>
  structure(included.schema, () => undefined, {
    public: true,
    readOnly: true,
    description:
      'The courses and digital products `includes` names, with their titles (for the public: the published ones)',
  })

/** Refuses included courses and digital products that do not exist (422 naming the list). */
export async function checkIncludes(db: ResourceDb, column: string): Promise<void> {
  const includes = includesOf(column)
  const errors: FieldError[] = []
  const check = async (table: string, ids: string[], member: string, noun: string) => {
    if (ids.length === 0) return
    const found = new Set(
      (await db.selectFrom(table).select('id').where('id', 'in', ids).execute()).map((r) => r.id),
    )
    const missing = ids.filter((id) => !found.has(id))
    if (missing.length > 0)
      errors.push({
        field: `includes.${member}`,
        code: 'not_found',
        message: `no ${noun} with id ${missing.join(', ')}`,
      })
  }
  await check('courses', includes.course_ids, 'course_ids', 'course')
  await check(
    'digital_products',
    includes.digital_product_ids,
    'digital_product_ids',
    'digital product',
  )
  if (errors.length > 0) throw validationFailed(errors)
}

/**
 * Loads the titles of what each plan includes into `row.included`, one query per table for
 * a page. The public sees published items only (unlisted courses are reachable by link), and
 * `includes` is narrowed to them.
 */
export async function loadIncluded(
  db: ResourceDb,
  rows: RowOf<'membership_plans'>[],
  full: boolean,
): Promise<void> {
  const includes = new Map(rows.map((r) => [r.id, includesOf(r.includes)]))
  const courseIds = [...new Set([...includes.values()].flatMap((i) => i.course_ids))]
  const productIds = [...new Set([...includes.values()].flatMap((i) => i.digital_product_ids))]
  const [courses, products] = await Promise.all([
    courseIds.length === 0
      ? []
      : db
          .selectFrom('courses')
          .select(['id', 'title', 'slug', 'status', 'visibility'])
          .where('id', 'in', courseIds)
          .execute(),
    productIds.length === 0
      ? []
      : db
          .selectFrom('digital_products')
          .select(['id', 'title', 'slug', 'status'])
          .where('id', 'in', productIds)
          .execute(),
  ])
  const courseShown = (c: Row) => full || (c.status === 'published' && c.visibility !== 'private')
  const productShown = (p: Row) => full || p.status === 'published'
  // The status is for the full view only.
  const item = (r: Row): Row => (full ? r : { ...r, status: undefined })
  for (const row of rows) {
    const own = includes.get(row.id) ?? { ...NO_INCLUDES }
    const shownCourses = courses.filter((c) => own.course_ids.includes(c.id))
    const shownProducts = products.filter((p) => own.digital_product_ids.includes(p.id))
    row.included = included.show({
      courses: shownCourses.filter(courseShown).map(item),
      digital_products: shownProducts.filter(productShown).map(item),
    })
    if (!full)
      row.includes = JSON.stringify({
        ...own,
        course_ids: shownCourses.filter(courseShown).map((c) => c.id),
        digital_product_ids: shownProducts.filter(productShown).map((p) => p.id),
      })
  }
}
