import type { ApiArea } from '../area.js'
import { membershipPlans } from './membership-plans.resource.js'
import { subscriptions } from './subscriptions.resource.js'

/** Membership plans with their prices, and the subscriptions to them (DOMAIN.md §4.3.11–12). */
export const membershipsArea: ApiArea = { resources: [membershipPlans, subscriptions] }
