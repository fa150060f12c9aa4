import type { ApiArea } from '../area.js'

export const communityArea: ApiArea = { resources: [] }
