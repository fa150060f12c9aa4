import type { ApiArea } from '../area.js'

export const eventsArea: ApiArea = { resources: [] }
