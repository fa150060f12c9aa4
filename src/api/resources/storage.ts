import type { ApiArea } from '../area.js'

export const storageArea: ApiArea = { resources: [] }
