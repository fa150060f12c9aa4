import type { ApiArea } from '../area.js'
import { coupons } from './coupons.resource.js'
import { orders } from './orders.resource.js'

/** Commerce: coupons (read/write) and orders (read only, with items and refunds embedded). */
export const commerceArea: ApiArea = { resources: [coupons, orders] }
