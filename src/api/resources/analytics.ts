import type { ApiArea } from '../area.js'

export const analyticsArea: ApiArea = { resources: [] }
