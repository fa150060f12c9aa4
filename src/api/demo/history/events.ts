import type { AttendeeStatus } from '../../../storage/tables/events.js'

/**
 * An attendee (att_demo_…): ticket, student number, status, how they registered (a
 * `purchase` has its order), the day they registered, when they checked in (days from the
 * current hour, as the event times are), and the number of their order.
 */
export type DemoAttendee = readonly [
  id: string,
  ticket: string,
  student: number,
  status: AttendeeStatus,
  source: 'purchase' | 'manual',
  day: number,
  checkedIn: number | null,
  order: number | null,
]

/**
 * Live Q&A: 14 members on the free ticket. Portrait workshop: the 8 early-bird seats sold,
 * then 5 regular ones. Golden-hour walk: 7 came, 2 did not show, 1 canceled (refunded).
 * The canceled class: three had registered before it was called off.
 */
// biome-ignore format: one attendee a line
export const ATTENDEES: readonly DemoAttendee[] = [
  ['live_qa_01', 'tkt_demo_live_qa_free', 1, 'registered', 'manual', -14, null, null],
  ['live_qa_02', 'tkt_demo_live_qa_free', 2, 'registered', 'manual', -12 - 23 / 24, null, null],
  ['live_qa_03', 'tkt_demo_live_qa_free', 3, 'registered', 'manual', -11 - 22 / 24, null, null],
  ['live_qa_04', 'tkt_demo_live_qa_free', 4, 'registered', 'manual', -10 - 21 / 24, null, null],
  ['live_qa_05', 'tkt_demo_live_qa_free', 5, 'registered', 'manual', -9 - 20 / 24, null, null],
  ['live_qa_06', 'tkt_demo_live_qa_free', 6, 'registered', 'manual', -8 - 19 / 24, null, null],
  ['live_qa_07', 'tkt_demo_live_qa_free', 7, 'registered', 'manual', -7 - 18 / 24, null, null],
  ['live_qa_08', 'tkt_demo_live_qa_free', 9, 'registered', 'manual', -6 - 17 / 24, null, null],
  ['live_qa_09', 'tkt_demo_live_qa_free', 10, 'registered', 'manual', -5 - 16 / 24, null, null],
  ['live_qa_10', 'tkt_demo_live_qa_free', 11, 'registered', 'manual', -4 - 15 / 24, null, null],
  ['live_qa_11', 'tkt_demo_live_qa_free', 12, 'registered', 'manual', -3 - 14 / 24, null, null],
  ['live_qa_12', 'tkt_demo_live_qa_free', 13, 'registered', 'manual', -2 - 13 / 24, null, null],
  ['live_qa_13', 'tkt_demo_live_qa_free', 14, 'registered', 'manual', -1 - 12 / 24, null, null],
  ['live_qa_14', 'tkt_demo_live_qa_free', 15, 'registered', 'manual', -11 / 24, null, null],
  ['portrait_workshop_15', 'tkt_demo_early_bird', 16, 'registered', 'purchase', -50, null, 1013],
  ['portrait_workshop_16', 'tkt_demo_early_bird', 17, 'registered', 'purchase', -47, null, 1015],
  ['portrait_workshop_17', 'tkt_demo_early_bird', 18, 'registered', 'purchase', -44, null, 1017],
  ['portrait_workshop_18', 'tkt_demo_early_bird', 19, 'registered', 'purchase', -41, null, 1020],
  ['portrait_workshop_19', 'tkt_demo_early_bird', 20, 'registered', 'purchase', -38, null, 1022],
  ['portrait_workshop_20', 'tkt_demo_early_bird', 21, 'registered', 'purchase', -35, null, 1026],
  ['portrait_workshop_21', 'tkt_demo_early_bird', 22, 'registered', 'purchase', -32, null, 1032],
  ['portrait_workshop_22', 'tkt_demo_early_bird', 23, 'registered', 'purchase', -29, null, 1036],
  ['portrait_workshop_23', 'tkt_demo_regular', 24, 'registered', 'purchase', -20, null, 1048],
  ['portrait_workshop_24', 'tkt_demo_regular', 25, 'registered', 'purchase', -16, null, 1054],
  ['portrait_workshop_25', 'tkt_demo_regular', 26, 'registered', 'purchase', -12, null, 1056],
  ['portrait_workshop_26', 'tkt_demo_regular', 27, 'registered', 'purchase', -8, null, 1059],
  ['portrait_workshop_27', 'tkt_demo_regular', 28, 'registered', 'purchase', -4, null, 1063],
  ['golden_hour_walk_28', 'tkt_demo_golden_hour_walk', 4, 'checked_in', 'purchase', -35, -10 - 10 / 1440, 1027],
  ['golden_hour_walk_29', 'tkt_demo_golden_hour_walk', 7, 'checked_in', 'purchase', -33, -10 - 9 / 1440, 1030],
  ['golden_hour_walk_30', 'tkt_demo_golden_hour_walk', 11, 'checked_in', 'purchase', -31, -10 - 8 / 1440, 1033],
  ['golden_hour_walk_31', 'tkt_demo_golden_hour_walk', 14, 'checked_in', 'purchase', -29, -10 - 7 / 1440, 1037],
  ['golden_hour_walk_32', 'tkt_demo_golden_hour_walk', 17, 'checked_in', 'purchase', -27, -10 - 6 / 1440, 1039],
  ['golden_hour_walk_33', 'tkt_demo_golden_hour_walk', 20, 'checked_in', 'purchase', -25, -10 - 5 / 1440, 1041],
  ['golden_hour_walk_34', 'tkt_demo_golden_hour_walk', 23, 'checked_in', 'purchase', -23, -10 - 4 / 1440, 1043],
  ['golden_hour_walk_35', 'tkt_demo_golden_hour_walk', 26, 'no_show', 'purchase', -21, null, 1046],
  ['golden_hour_walk_36', 'tkt_demo_golden_hour_walk', 29, 'no_show', 'purchase', -19, null, 1050],
  ['golden_hour_walk_37', 'tkt_demo_golden_hour_walk', 32, 'canceled', 'purchase', -17, null, 1051],
  ['canceled_class_38', 'tkt_demo_canceled_class_free', 32, 'registered', 'manual', -20, null, null],
  ['canceled_class_39', 'tkt_demo_canceled_class_free', 33, 'registered', 'manual', -19, null, null],
  ['canceled_class_40', 'tkt_demo_canceled_class_free', 34, 'registered', 'manual', -18, null, null],
]
