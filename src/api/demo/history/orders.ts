import type { OrderProductType, OrderStatus } from '../../../storage/tables/commerce.js'

/** What a line sells, at its list price (the order line's name and unit amount). */
export interface DemoProduct {
  readonly type: OrderProductType
  readonly product: string
  /** The course pricing plan or the membership price. */
  readonly price: string | null
  /** The event of a ticket. */
  readonly event: string | null
  readonly name: string
  readonly unit: number
}

const course = (product: string, price: string, name: string, unit: number): DemoProduct => ({
  type: 'course',
  product,
  price,
  event: null,
  name,
  unit,
})
const plan = (product: string, price: string, name: string, unit: number): DemoProduct => ({
  type: 'membership_plan',
  product,
  price,
  event: null,
  name,
  unit,
})
const download = (product: string, name: string, unit: number): DemoProduct => ({
  type: 'digital_product',
  product,
  price: null,
  event: null,
  name,
  unit,
})
const ticket = (product: string, event: string, name: string, unit: number): DemoProduct => ({
  type: 'event_ticket',
  product,
  price: null,
  event,
  name,
  unit,
})

const FOUNDATIONS = course(
  'crs_demo_photography_foundations',
  'pln_demo_foundations_full',
  'Photography Foundations',
  14900,
)
const LIGHTROOM = course(
  'crs_demo_lightroom_editing_masterclass',
  'pln_demo_lightroom',
  'Lightroom Editing Masterclass',
  9900,
)
const PORTRAIT = course(
  'crs_demo_portrait_lighting',
  'pln_demo_portrait',
  'Portrait Lighting',
  12900,
)
const STUDIO_MONTHLY_LEGACY = plan(
  'mpl_demo_studio_pass',
  'mpp_demo_studio_monthly_legacy',
  'Studio Pass',
  1500,
)
const STUDIO_MONTHLY = plan('mpl_demo_studio_pass', 'mpp_demo_studio_monthly', 'Studio Pass', 1900)
const STUDIO_YEARLY = plan('mpl_demo_studio_pass', 'mpp_demo_studio_yearly', 'Studio Pass', 19000)
const FOUNDERS_LIFETIME = plan(
  'mpl_demo_founders_lifetime',
  'mpp_demo_founders_lifetime',
  'Founders Lifetime',
  49900,
)
const PRESET_PACK = download('dpr_demo_lightroom_preset_pack', 'Lightroom Preset Pack', 2400)
/** The pack bought in euros (the second currency every figure lists apart). */
const PRESET_PACK_EUR = download('dpr_demo_lightroom_preset_pack', 'Lightroom Preset Pack', 2200)
/** The free lead magnet: its orders are free on purpose. */
const GEAR_CHECKLIST = download('dpr_demo_gear_checklist', 'Gear Checklist PDF', 0)
const EARLY_BIRD = ticket(
  'tkt_demo_early_bird',
  'evt_demo_portrait_workshop',
  'Portrait Lighting Workshop: Early bird',
  8900,
)
const REGULAR_SEAT = ticket(
  'tkt_demo_regular',
  'evt_demo_portrait_workshop',
  'Portrait Lighting Workshop: Regular',
  11900,
)
const WALK = ticket(
  'tkt_demo_golden_hour_walk',
  'evt_demo_golden_hour_walk',
  'Golden-Hour Photo Walk: Walk',
  1500,
)

/** A refund: of one line (its index) or of the order (null), on a day. */
export interface DemoRefund {
  readonly line: number | null
  readonly amount: number
  readonly day: number
  readonly reason: string
}

/**
 * An order (ord_demo_{n}), paid (or attempted) on a day, by a student (number): its lines
 * with their discounts, the coupon and tax; the totals are their sums. Paid by card (last
 * four digits) or PayPal; free orders by neither.
 */
export interface DemoOrder {
  readonly n: number
  readonly day: number
  readonly by: number
  /** paid unless said. */
  readonly status?: Exclude<OrderStatus, 'paid' | 'pending'>
  readonly lines: ReadonlyArray<readonly [product: DemoProduct, discount?: number]>
  readonly coupon?: string
  readonly tax?: number
  /** USD unless said (ISO 4217; the loader refuses a code money is not written in). */
  readonly currency?: string
  readonly card?: string
  readonly paypal?: true
  readonly subscription?: string
  readonly refunds?: readonly DemoRefund[]
}

/**
 * Ninety days of orders: course purchases (the enrollments with source `purchase`),
 * subscription payments (the first at the end of the trial, one a period; the past-due and
 * expired ones' last renewals failed), paid tickets, downloads (the checklist free), an
 * abandoned checkout (expired), an order in euros, a refunded ticket and a partial refund.
 */
// biome-ignore format: one order a line
export const ORDERS: readonly DemoOrder[] = [
  { n: 1001, day: -89, by: 1, lines: [[FOUNDATIONS, 5960], [LIGHTROOM, 3960]], coupon: 'BLACKFRIDAY', card: '4242' },
  { n: 1002, day: -85, by: 1, lines: [[STUDIO_MONTHLY_LEGACY, 600]], coupon: 'BLACKFRIDAY', card: '5359', subscription: 'sub_demo_monthly_legacy' },
  { n: 1003, day: -81, by: 5, lines: [[FOUNDATIONS, 5960]], coupon: 'BLACKFRIDAY', card: '6476' },
  { n: 1004, day: -75, by: 6, lines: [[STUDIO_MONTHLY_LEGACY]], paypal: true, subscription: 'sub_demo_expired' },
  { n: 1005, day: -73, by: 9, lines: [[FOUNDATIONS, 1202], [LIGHTROOM, 798]], coupon: 'FRIEND20', card: '8710' },
  { n: 1006, day: -70, by: 4, lines: [[FOUNDERS_LIFETIME, 4990]], coupon: 'WELCOME10', card: '4827', subscription: 'sub_demo_founder' },
  { n: 1007, day: -65, by: 13, lines: [[FOUNDATIONS, 2000]], coupon: 'FRIEND20', card: '5944' },
  { n: 1008, day: -60, by: 2, lines: [[STUDIO_YEARLY, 2850]], coupon: 'PARTNER15', paypal: true, subscription: 'sub_demo_yearly_1' },
  { n: 1009, day: -59, by: 16, lines: [[FOUNDATIONS, 1490]], coupon: 'WELCOME10', card: '8178' },
  { n: 1010, day: -55, by: 1, lines: [[STUDIO_MONTHLY_LEGACY]], card: '4295', subscription: 'sub_demo_monthly_legacy' },
  { n: 1011, day: -53, by: 19, lines: [[FOUNDATIONS, 1072], [PORTRAIT, 928]], coupon: 'FRIEND20', card: '5412' },
  { n: 1012, day: -52 - 3 / 24, by: 13, lines: [[PRESET_PACK]], paypal: true },
  { n: 1013, day: -50, by: 16, lines: [[EARLY_BIRD]], card: '7646' },
  { n: 1014, day: -47, by: 22, lines: [[FOUNDATIONS, 2000]], coupon: 'FRIEND20', card: '8763' },
  { n: 1015, day: -47, by: 17, lines: [[EARLY_BIRD, 2000]], coupon: 'FRIEND20', card: '4880' },
  { n: 1016, day: -45, by: 6, lines: [[STUDIO_MONTHLY_LEGACY]], paypal: true, subscription: 'sub_demo_expired' },
  { n: 1017, day: -44, by: 18, lines: [[EARLY_BIRD, 890]], coupon: 'WELCOME10', card: '7114' },
  { n: 1018, day: -41 - 3 / 24, by: 20, status: 'free', lines: [[GEAR_CHECKLIST]] },
  { n: 1019, day: -41, by: 25, lines: [[FOUNDATIONS], [LIGHTROOM, 2475]], coupon: 'SPRING25', card: '4348' },
  { n: 1020, day: -41, by: 19, lines: [[EARLY_BIRD, 890]], coupon: 'WELCOME10', paypal: true },
  { n: 1021, day: -39, by: 26, lines: [[FOUNDATIONS, 2000]], coupon: 'FRIEND20', card: '6582' },
  { n: 1022, day: -38, by: 20, lines: [[EARLY_BIRD, 2000]], coupon: 'FRIEND20', card: '7699' },
  { n: 1023, day: -37, by: 27, lines: [[FOUNDATIONS, 1490], [PORTRAIT, 1290]], coupon: 'WELCOME10', card: '8816' },
  { n: 1024, day: -37, by: 17, lines: [[STUDIO_MONTHLY]], paypal: true, subscription: 'sub_demo_cancelling' },
  { n: 1025, day: -36, by: 15, lines: [[STUDIO_MONTHLY]], card: '6050', subscription: 'sub_demo_past_due' },
  { n: 1026, day: -35, by: 21, lines: [[EARLY_BIRD, 890]], coupon: 'WELCOME10', card: '7167' },
  { n: 1027, day: -35, by: 4, lines: [[WALK]], card: '8284' },
  { n: 1028, day: -33 - 2 / 24, by: 29, lines: [[PRESET_PACK_EUR]], currency: 'EUR', paypal: true },
  { n: 1029, day: -33, by: 11, lines: [[STUDIO_MONTHLY, 190]], coupon: 'WELCOME10', card: '5518', subscription: 'sub_demo_monthly' },
  { n: 1030, day: -33, by: 7, lines: [[WALK]], card: '6635' },
  { n: 1031, day: -33, by: 29, lines: [[FOUNDATIONS, 2000]], coupon: 'FRIEND20', card: '7752' },
  { n: 1032, day: -32, by: 22, lines: [[EARLY_BIRD, 890]], coupon: 'WELCOME10', paypal: true },
  { n: 1033, day: -31, by: 11, lines: [[WALK]], card: '4986' },
  { n: 1034, day: -31, by: 30, lines: [[FOUNDATIONS, 2000]], coupon: 'FRIEND20', card: '6103' },
  { n: 1035, day: -29, by: 31, lines: [[FOUNDATIONS, 1490], [PORTRAIT, 1290]], coupon: 'WELCOME10', card: '7220' },
  { n: 1036, day: -29, by: 23, lines: [[EARLY_BIRD, 2000]], coupon: 'FRIEND20', paypal: true },
  { n: 1037, day: -29, by: 14, lines: [[WALK]], card: '4454' },
  { n: 1038, day: -27, by: 32, status: 'free', lines: [[FOUNDATIONS, 14900]], coupon: 'VIPFREE' },
  { n: 1039, day: -27, by: 17, lines: [[WALK]], card: '6688' },
  // Every money rule at once: 20 % VAT, a coupon, two lines; half the preset pack's line
  // refunded (the refund names it: its share of the tax goes with it), then a goodwill
  // amount naming no line, which splits unevenly over the lines and the tax.
  { n: 1040, day: -26 - 5 / 24, by: 28, status: 'partially_refunded', lines: [[PRESET_PACK, 240], [LIGHTROOM, 990]], coupon: 'WELCOME10', tax: 2214, paypal: true, refunds: [{ line: 0, amount: 1296, day: -24 - 5 / 24, reason: 'Half the presets did not suit the camera' }, { line: null, amount: 101, day: -21 - 5 / 24, reason: 'Goodwill for a late download link' }] },
  { n: 1041, day: -25, by: 20, lines: [[WALK]], card: '8922' },
  { n: 1042, day: -24, by: 1, lines: [[STUDIO_MONTHLY_LEGACY]], card: '5039', subscription: 'sub_demo_monthly_legacy' },
  { n: 1043, day: -23, by: 23, lines: [[WALK, 150]], coupon: 'WELCOME10', card: '6156' },
  { n: 1044, day: -23, by: 34, lines: [[FOUNDATIONS, 2000]], coupon: 'FRIEND20', paypal: true },
  { n: 1045, day: -21, by: 35, status: 'partially_refunded', lines: [[FOUNDATIONS], [PORTRAIT]], card: '8390', refunds: [{ line: 1, amount: 12900, day: -18, reason: 'Bought Portrait Lighting by mistake' }] },
  { n: 1046, day: -21, by: 26, lines: [[WALK]], card: '4507' },
  { n: 1047, day: -20, by: 13, lines: [[STUDIO_YEARLY, 1900]], coupon: 'WELCOME10', card: '5624', subscription: 'sub_demo_yearly_2' },
  { n: 1048, day: -20, by: 24, lines: [[REGULAR_SEAT, 2000]], coupon: 'FRIEND20', paypal: true },
  { n: 1049, day: -19, by: 36, lines: [[FOUNDATIONS]], card: '7858' },
  { n: 1050, day: -19, by: 29, lines: [[WALK, 150]], coupon: 'WELCOME10', card: '8975' },
  { n: 1051, day: -17, by: 32, status: 'refunded', lines: [[WALK]], card: '5092', refunds: [{ line: null, amount: 1500, day: -17, reason: 'Could not attend' }] },
  { n: 1052, day: -17, by: 37, lines: [[FOUNDATIONS]], paypal: true },
  { n: 1053, day: -16 - 3 / 24, by: 31, lines: [[PRESET_PACK]], card: '7326' },
  { n: 1054, day: -16, by: 25, lines: [[REGULAR_SEAT, 1190]], coupon: 'WELCOME10', card: '8443' },
  { n: 1055, day: -14, by: 6, status: 'failed', lines: [[STUDIO_MONTHLY_LEGACY]], card: '4560', subscription: 'sub_demo_expired' },
  { n: 1056, day: -12, by: 26, lines: [[REGULAR_SEAT]], paypal: true },
  { n: 1057, day: -11 - 3 / 24, by: 34, status: 'free', lines: [[GEAR_CHECKLIST]] },
  { n: 1058, day: -8 - 3 / 24, by: 36, lines: [[PRESET_PACK, 240]], coupon: 'WELCOME10', card: '7911' },
  { n: 1059, day: -8, by: 27, lines: [[REGULAR_SEAT]], card: '9028' },
  { n: 1060, day: -6, by: 17, lines: [[STUDIO_MONTHLY]], paypal: true, subscription: 'sub_demo_cancelling' },
  { n: 1061, day: -5, by: 33, status: 'expired', lines: [[PORTRAIT]], card: '6262' },
  { n: 1062, day: -5, by: 15, status: 'failed', lines: [[STUDIO_MONTHLY]], card: '7379', subscription: 'sub_demo_past_due' },
  { n: 1063, day: -4, by: 28, lines: [[REGULAR_SEAT]], card: '8496' },
  { n: 1064, day: -2, by: 11, lines: [[STUDIO_MONTHLY]], paypal: true, subscription: 'sub_demo_monthly' },
  { n: 1065, day: -1 - 3 / 24, by: 38, lines: [[PRESET_PACK, 240]], coupon: 'WELCOME10', card: '5730' },
]
