import type { ApiArea } from '../area.js'
import { coupons } from './coupons.js'
import { orders } from './orders.js'

/** Commerce: coupons (read/write) and orders (read only, with items and refunds embedded). */
export const commerceArea: ApiArea = { resources: [coupons, orders] }
