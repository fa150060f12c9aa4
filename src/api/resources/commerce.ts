import type { ApiArea } from '../area.js'

export const commerceArea: ApiArea = { resources: [] }
