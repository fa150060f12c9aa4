import type { ApiArea } from '../area.js'
import { comments } from './comments.resource.js'
import { formSubmissionEndpoint } from './form-submission-endpoint.js'
import { formSubmissions, forms } from './forms.resource.js'

/**
 * The community area (DOMAIN.md §4.3.16, §4.3.18): comments and forms, read only through the
 * API, and the anonymous submission of a form.
 */
export const communityArea: ApiArea = {
  resources: [comments, forms, formSubmissions],
  endpoints: [formSubmissionEndpoint],
}
