import type { ApiArea } from '../area.js'
import { comments } from './comments.js'
import { formSubmissionPaths, registerFormSubmissionRoutes } from './form-submission-routes.js'
import { formSubmissions, forms } from './forms.js'

/**
 * The community area (DOMAIN.md §4.3.16, §4.3.18): comments and forms, read only through the
 * API, and the anonymous submission of a form.
 */
export const communityArea: ApiArea = {
  resources: [comments, forms, formSubmissions],
  legacy: { paths: formSubmissionPaths, register: registerFormSubmissionRoutes },
}
