import { analyticsArea } from './analytics/analytics-area.js'
import type { ApiArea } from './area.js'
import { courseCategories, postCategories } from './catalogue/categories.js'
import { courses } from './catalogue/courses.resource.js'
import { lecturers } from './catalogue/lecturers.resource.js'
import { lessons } from './catalogue/lessons.resource.js'
import { sections } from './catalogue/sections.resource.js'
import { commerceArea } from './commerce/commerce-area.js'
import { communityArea } from './community/community-area.js'
import { posts } from './community/posts.resource.js'
import { eventsArea } from './events/events.resource.js'
import { storageArea } from './files/files-area.js'
import type { ResourceDefinition } from './framework/resource.js'
import { membershipsArea } from './memberships/memberships-area.js'
import { enrollments } from './people/enrollments.resource.js'
import { members } from './people/members.resource.js'
import { students } from './people/students.resource.js'
import { appearance } from './school/appearance.resource.js'
import { pages } from './school/pages.resource.js'
import { school } from './school/school.resource.js'

/** The parts of the API beyond the first resources, each with its own routes. */
export const AREAS: readonly ApiArea[] = [
  eventsArea,
  membershipsArea,
  storageArea,
  commerceArea,
  analyticsArea,
  communityArea,
]

/** Every resource the API serves from a declaration, in the order the index lists them. */
export const RESOURCES: readonly ResourceDefinition[] = [
  school,
  appearance,
  courses,
  courseCategories,
  sections,
  lessons,
  lecturers,
  posts,
  postCategories,
  pages,
  members,
  students,
  enrollments,
  ...AREAS.flatMap((area) => area.resources),
]
