import type { ApiArea } from '../area.js'
import { storageArea } from '../files/storage-area.js'
import type { ResourceDefinition } from '../framework/resource.js'
import { analyticsArea } from './analytics.js'
import { appearance } from './appearance.js'
import { courseCategories, postCategories } from './categories.js'
import { commerceArea } from './commerce.js'
import { communityArea } from './community.js'
import { courses } from './courses.js'
import { enrollments } from './enrollments.js'
import { eventsArea } from './events.js'
import { lecturers } from './lecturers.js'
import { lessons } from './lessons.js'
import { members } from './members.js'
import { membershipsArea } from './memberships.js'
import { pages } from './pages.js'
import { posts } from './posts.js'
import { school } from './school.js'
import { sections } from './sections.js'
import { students } from './students.js'

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
