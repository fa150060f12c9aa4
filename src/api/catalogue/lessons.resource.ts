import { validationFailed } from '../conventions.js'
import {
  boolean,
  enumeration,
  type Field,
  html,
  integer,
  reference,
  text,
  url,
} from '../framework/fields.js'
import { compact, placeAt } from '../framework/positions.js'
import { defineResource, type ResourceDefinition } from '../framework/resource.js'
import { list, object } from '../framework/structures.js'
import { curriculumOwnership } from '../people/owners.js'
import { sections } from './sections.resource.js'

const attachment: Record<string, Field> = {
  name: text({ required: true, max: 200 }),
  url: url({ required: true }),
  content_type: text({ max: 100, nullable: true }),
  size: integer({ max: 2_000_000_000, nullable: true }),
}

/** What a free-preview lesson shows the public beyond the outline. */
const PREVIEW_CONTENT = ['body', 'video', 'attachments'] as const

/**
 * Lessons (DOMAIN.md §4.3.2). The public sees the outline of published lessons in published
 * sections of visible courses, and the content of free-preview lessons. Moving a lesson is a
 * PATCH of `section_id` (within its course) and/or `position`.
 */
export const lessons: ResourceDefinition = defineResource({
  object: 'lesson',
  collection: 'lessons',
  table: 'lessons',
  idPrefix: 'lsn',
  summary: 'Lessons of a course',
  scopes: { read: 'curriculum:read', write: 'curriculum:write' },
  writeRoles: ['owner', 'admin', 'editor', 'lecturer'],
  ownership: curriculumOwnership,
  operations: ['list', 'get', 'create', 'update', 'delete'],
  parent: { resource: () => sections, column: 'section_id' },
  public: { get: { status: ['published'] }, withParent: true },
  defaultSort: 'position',
  fields: {
    course_id: reference('crs', { public: true, readOnly: true, filter: true }),
    section_id: reference('sec', { public: true, filter: true }),
    title: text({ public: true, required: true, max: 200, sortable: true, search: true }),
    type: enumeration(['video', 'text', 'pdf', 'audio', 'quiz', 'download', 'embed', 'live'], {
      public: true,
      required: true,
      filter: true,
    }),
    position: integer({ public: true, sortable: true, max: 10_000 }),
    status: enumeration(['draft', 'published'], { filter: true, default: 'draft' }),
    is_free_preview: boolean({ public: true, filter: true, default: false }),
    duration_seconds: integer({ public: true, nullable: true, max: 360_000 }),
    body: html({ nullable: true, description: 'Public only on free-preview lessons.' }),
    video: object(
      {
        provider: enumeration(['upload', 'youtube', 'vimeo'], { required: true }),
        url: url({ required: true }),
        duration_seconds: integer({ max: 360_000, nullable: true }),
        thumbnail_url: url({ nullable: true }),
      },
      { nullable: true, description: 'Public only on free-preview lessons.' },
    ),
    attachments: list(attachment, {
      max: 20,
      noun: 'files',
      default: [],
      description: 'Public only on free-preview lessons.',
    }),
    embed_url: url({ nullable: true }),
    comments_enabled: boolean({ public: true, default: true }),
    completion_rule: enumeration(['view', 'video_percent_90', 'quiz_pass', 'manual'], {
      default: 'view',
    }),
  },
  computed: (row, full) => {
    if (full || !row.is_free_preview) return {}
    return Object.fromEntries(
      PREVIEW_CONTENT.map((name) => [name, lessons.fields[name]?.fromColumn(row[name] ?? null)]),
    )
  },
  async beforeWrite(context, values, existing) {
    const id = (existing?.id ?? values.id)!
    const target = (values.section_id ?? existing?.section_id)!
    const moved = existing !== undefined && target !== existing.section_id
    if (existing && !moved && values.position === undefined) return
    const section = await context.db
      .selectFrom('sections')
      .select(['id', 'course_id'])
      .where('id', '=', target)
      .executeTakeFirst()
    if (!section || (existing && section.course_id !== existing.course_id))
      throw validationFailed([
        {
          field: 'section_id',
          code: 'not_found',
          message: 'no section with this id in the lesson’s course',
        },
      ])
    values.course_id = section.course_id
    values.position = await placeAt(
      context.db,
      'lessons',
      'section_id',
      target,
      id,
      values.position as number | undefined,
    )
    if (moved) await compact(context.db, 'lessons', 'section_id', existing.section_id, id)
  },
})
