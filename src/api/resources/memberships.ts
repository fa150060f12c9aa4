import type { ApiArea } from '../area.js'

export const membershipsArea: ApiArea = { resources: [] }
