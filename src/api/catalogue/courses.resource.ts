import { type SqlBool, sql } from 'kysely'
import type { FieldError } from '../conventions.js'
import { conflict, validationFailed } from '../conventions.js'
import {
  boolean,
  enumeration,
  html,
  instant,
  integer,
  reference,
  stringList,
  text,
  url,
} from '../framework/fields.js'
import { requireReference } from '../framework/references.js'
import { defineResource, type ResourceContext } from '../framework/resource.js'
import { SLUG, uniqueSlug } from '../framework/slugs.js'
import { object } from '../framework/structures.js'
import { checkLecturerIds, lecturerIdsField, schoolWide } from '../people/owners.js'
import { checkPlanCurrencies, pricingPlans } from './pricing-plans.js'

type Plan = { id?: string; available?: boolean; price?: { currency?: string } }

/** Copies the sections and lessons of a course to another, as drafts with new ids. */
async function copyCurriculum(context: ResourceContext, from: string, to: string): Promise<void> {
  const { db, deps, now } = context
  const sectionIds = new Map<string, string>()
  const sectionRows = await db
    .selectFrom('sections')
    .selectAll()
    .where('course_id', '=', from)
    .execute()
  for (const section of sectionRows) {
    const id = deps.random.id('sec')
    sectionIds.set(section.id, id)
    await db
      .insertInto('sections')
      .values({ ...section, id, course_id: to, status: 'draft', created_at: now, updated_at: now })
      .execute()
  }
  const lessonRows = await db
    .selectFrom('lessons')
    .selectAll()
    .where('course_id', '=', from)
    .execute()
  for (const lesson of lessonRows)
    await db
      .insertInto('lessons')
      .values({
        ...lesson,
        id: deps.random.id('lsn'),
        course_id: to,
        // Every section of the course was copied above.
        section_id: sectionIds.get(lesson.section_id)!,
        status: 'draft',
        created_at: now,
        updated_at: now,
      })
      .execute()
}

/**
 * Courses (DOMAIN.md §4.3.1). Anonymous callers list published public courses and may read
 * published unlisted ones by id or slug; the public projection shows only available plans.
 */
export const courses = defineResource({
  object: 'course',
  collection: 'courses',
  table: 'courses',
  idPrefix: 'crs',
  summary: 'The course catalogue',
  scopes: { read: 'courses:read', write: 'courses:write' },
  writeRoles: ['owner', 'admin', 'editor'],
  ownership: schoolWide(
    'Courses are the school’s catalogue; lecturers may not write them at all (DOMAIN.md §4.1: courses:read), though the lecturers a course lists own its curriculum',
  ),
  operations: ['list', 'get', 'create', 'update', 'delete'],
  public: {
    get: { status: ['published'], visibility: ['public', 'unlisted'] },
    list: { status: ['published'], visibility: ['public'] },
  },
  slugField: 'slug',
  fields: {
    title: text({ public: true, required: true, max: 120, sortable: true, search: true }),
    slug: text({ public: true, max: 80, unique: true, ...SLUG }),
    subtitle: text({ public: true, max: 200, nullable: true, search: true }),
    description: html({ public: true, nullable: true }),
    cover_image_url: url({ public: true, nullable: true }),
    promo_video_url: url({ public: true, nullable: true }),
    status: enumeration(['draft', 'published', 'archived'], {
      readOnly: true,
      filter: true,
      default: 'draft',
      description: 'Changed by the publish, unpublish and archive actions',
    }),
    visibility: enumeration(['public', 'unlisted', 'private'], { filter: true, default: 'public' }),
    featured: boolean({ public: true, filter: true, default: false }),
    category_id: reference('cat', { public: true, nullable: true, filter: true }),
    tags: stringList({ public: true, default: [] }),
    level: enumeration(['beginner', 'intermediate', 'advanced', 'all_levels'], {
      public: true,
      filter: true,
      default: 'all_levels',
    }),
    language: text({
      public: true,
      nullable: true,
      max: 35,
      pattern: /^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/,
    }),
    pricing_plans: pricingPlans({ public: true, required: true }),
    enrollment: object(
      {
        open: boolean({ default: true }),
        capacity: integer({ min: 1, max: 1_000_000, nullable: true }),
        starts_at: text({
          nullable: true,
          max: 30,
          pattern: /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/,
        }),
      },
      { public: true, default: { open: true } },
    ),
    certificate_enabled: boolean({ public: true, default: false }),
    comments_enabled: boolean({ public: true, default: true }),
    reviews_enabled: boolean({ public: true, default: true }),
    seo: object(
      {
        title: text({ max: 70, nullable: true }),
        description: text({ max: 160, nullable: true }),
        image_url: url({ nullable: true }),
      },
      { public: true, nullable: true },
    ),
    published_at: instant({ public: true, readOnly: true, nullable: true, filter: true }),
    lecturer_ids: lecturerIdsField(),
  },
  filters: {
    lecturer_id: {
      field: reference('lec'),
      reads: ['lecturer_ids'],
      description: 'Courses this lecturer teaches',
      where: (_eb, _op, value) =>
        sql<SqlBool>`${sql.ref('lecturer_ids')} like ${`%"${String(value).replace(/[\\%_]/g, (c) => `\\${c}`)}"%`} escape '\\'`,
    },
  },
  computed: (row, full) =>
    full
      ? {}
      : {
          pricing_plans: (JSON.parse(row.pricing_plans) as Plan[]).filter(
            (p) => p.available !== false,
          ),
        },
  async beforeCreate(context, values) {
    values.slug ??= await uniqueSlug(context.db, 'courses', values.title!)
  },
  async beforeWrite(context, values) {
    const errors: FieldError[] = []
    if (typeof values.pricing_plans === 'string') {
      const plans = JSON.parse(values.pricing_plans) as Plan[]
      for (const plan of plans) plan.id ??= context.deps.random.id('pln')
      await checkPlanCurrencies(context.db, plans, errors)
      values.pricing_plans = JSON.stringify(plans)
    }
    await checkLecturerIds(context, values, errors)
    if (errors.length > 0) throw validationFailed(errors)
    if (typeof values.category_id === 'string') {
      await requireReference(
        context.db,
        'course_categories',
        values.category_id,
        'category_id',
        'course category',
      )
    }
  },
  async beforeDelete(context, row) {
    const enrolled = await context.db
      .selectFrom('enrollments')
      .select('id')
      .where('course_id', '=', row.id)
      .limit(1)
      .executeTakeFirst()
    if (row.status !== 'draft' || enrolled)
      throw conflict(
        'only a draft course without enrollments can be deleted; archive this one instead (POST …/archive)',
      )
  },
  lifecycle: {
    publish: {
      summary: 'Publish the course (it needs an available pricing plan)',
      to: 'published',
      stampOnce: 'published_at',
      check(_context, row) {
        const plans = JSON.parse(row.pricing_plans) as Plan[]
        if (!plans.some((p) => p.available !== false))
          throw validationFailed([
            {
              field: 'pricing_plans',
              code: 'required',
              message: 'a course needs at least one available pricing plan to be published',
            },
          ])
      },
    },
    unpublish: {
      summary: 'Take the course back to draft',
      to: 'draft',
      refuse: { archived: 'an archived course is not published' },
    },
    archive: {
      summary: 'Archive the course: hidden from the catalogue, learners keep their access',
      to: 'archived',
    },
  },
  actions: [
    {
      name: 'duplicate',
      summary: 'Copy the course and its curriculum as a new draft',
      creates: true,
      async run(context, row) {
        const id = context.deps.random.id('crs')
        const title = `${row.title} (copy)`.slice(0, 120)
        const plans = (JSON.parse(row.pricing_plans) as Plan[]).map((p) => ({
          ...p,
          id: context.deps.random.id('pln'),
        }))
        await context.db
          .insertInto('courses')
          .values({
            ...row,
            id,
            title,
            slug: await uniqueSlug(context.db, 'courses', title),
            status: 'draft',
            pricing_plans: JSON.stringify(plans),
            published_at: null,
            created_at: context.now,
            updated_at: context.now,
          })
          .execute()
        await copyCurriculum(context, row.id, id)
        return id
      },
    },
  ],
})
