import type { ResourceDefinition } from '../framework/resource.js'
import { appearance } from './appearance.js'
import { courseCategories } from './course-categories.js'
import { courses } from './courses.js'
import { enrollments } from './enrollments.js'
import { lecturers } from './lecturers.js'
import { lessons } from './lessons.js'
import { members } from './members.js'
import { pages } from './pages.js'
import { posts } from './posts.js'
import { school } from './school.js'
import { sections } from './sections.js'
import { students } from './students.js'

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
  pages,
  members,
  students,
  enrollments,
]
