import type { UserTable, UserTeamColumns } from '../../../storage/tables/oauth.js'
import type { StudentTable } from '../../../storage/tables/school.js'

/** Every demo account's password (README: Demo school). Demo only. */
export const DEMO_PASSWORD = 'brightframe-demo-password'

/** A team member: who they are, since when (days from now), and how their account stands. */
export interface DemoTeamMember {
  readonly id: string
  readonly name: string
  readonly email: string
  readonly role: Exclude<UserTable['role'], 'student'>
  readonly status: UserTeamColumns['status']
  readonly day: number
  /** Invited (by Maya) or suspended on this day. */
  readonly since?: number
}

/** The team (DOMAIN.md §4.7): every role, one invitation pending, one account suspended. */
// biome-ignore format: one member a line
export const TEAM: readonly DemoTeamMember[] = [
  { id: 'usr_demo_maya', name: 'Maya Chen', email: 'maya@brightframe.example', role: 'owner', status: 'active', day: -400 },
  { id: 'usr_demo_lena', name: 'Lena Fischer', email: 'lena@brightframe.example', role: 'admin', status: 'active', day: -370 },
  { id: 'usr_demo_diego', name: 'Diego Álvarez', email: 'diego@brightframe.example', role: 'lecturer', status: 'active', day: -340 },
  { id: 'usr_demo_sam', name: 'Sam Okafor', email: 'sam@brightframe.example', role: 'teaching_assistant', status: 'active', day: -310 },
  { id: 'usr_demo_support', name: 'Support', email: 'support@brightframe.example', role: 'editor', status: 'invited', day: -280, since: -2 },
  { id: 'usr_demo_jo', name: 'Jo Park', email: 'jo@brightframe.example', role: 'teaching_assistant', status: 'suspended', day: -250, since: -20 },
]

/**
 * A learner: number (stu_demo_NN), name (the e-mail is first.last@example.com), status, how
 * they came, the day they joined, marketing opt-in, tags.
 */
export type DemoStudent = readonly [
  n: number,
  name: string,
  status: StudentTable['status'],
  source: 'signup' | 'checkout' | 'api',
  day: number,
  optIn: boolean,
  tags: readonly string[],
]

/** Forty learners, one blocked, two invited through the API. */
// biome-ignore format: one learner a line
export const STUDENTS: readonly DemoStudent[] = [
  [1, 'Ada Moreau', 'active', 'checkout', -90, true, ['newsletter', 'b2b-cohort-a']],
  [2, 'Ben Moreau', 'active', 'signup', -88, false, ['vip', 'b2b-cohort-a']],
  [3, 'Chloe Moreau', 'active', 'signup', -86, false, ['b2b-cohort-a']],
  [4, 'Dev Moreau', 'active', 'signup', -84, true, ['newsletter', 'b2b-cohort-a']],
  [5, 'Elif Moreau', 'active', 'checkout', -82, false, ['b2b-cohort-a']],
  [6, 'Farah Moreau', 'active', 'signup', -80, false, ['b2b-cohort-a']],
  [7, 'Gus Moreau', 'active', 'signup', -78, true, ['newsletter']],
  [8, 'Hana Moreau', 'blocked', 'signup', -76, false, []],
  [9, 'Ivan Moreau', 'active', 'checkout', -74, false, []],
  [10, 'Jade Moreau', 'active', 'signup', -72, true, ['newsletter']],
  [11, 'Ada Silva', 'active', 'signup', -70, false, []],
  [12, 'Ben Silva', 'active', 'signup', -68, false, ['vip']],
  [13, 'Chloe Silva', 'active', 'checkout', -66, true, ['newsletter']],
  [14, 'Dev Silva', 'active', 'signup', -64, false, []],
  [15, 'Elif Silva', 'active', 'signup', -62, false, []],
  [16, 'Farah Silva', 'active', 'signup', -60, true, ['newsletter']],
  [17, 'Gus Silva', 'active', 'checkout', -58, false, []],
  [18, 'Hana Silva', 'active', 'signup', -56, false, []],
  [19, 'Ivan Silva', 'active', 'signup', -54, true, ['newsletter']],
  [20, 'Jade Silva', 'active', 'signup', -52, false, []],
  [21, 'Ada Kim', 'active', 'checkout', -50, false, []],
  [22, 'Ben Kim', 'active', 'signup', -48, true, ['newsletter', 'vip']],
  [23, 'Chloe Kim', 'active', 'signup', -46, false, []],
  [24, 'Dev Kim', 'active', 'signup', -44, false, []],
  [25, 'Elif Kim', 'active', 'checkout', -42, true, ['newsletter']],
  [26, 'Farah Kim', 'active', 'signup', -40, false, []],
  [27, 'Gus Kim', 'active', 'signup', -38, false, []],
  [28, 'Hana Kim', 'active', 'signup', -36, true, ['newsletter']],
  [29, 'Ivan Kim', 'active', 'checkout', -34, false, []],
  [30, 'Jade Kim', 'active', 'signup', -32, false, []],
  [31, 'Ada Novak', 'active', 'signup', -30, true, ['newsletter']],
  [32, 'Ben Novak', 'active', 'signup', -28, false, ['vip']],
  [33, 'Chloe Novak', 'active', 'checkout', -26, false, []],
  [34, 'Dev Novak', 'active', 'signup', -24, true, ['newsletter']],
  [35, 'Elif Novak', 'active', 'signup', -22, false, []],
  [36, 'Farah Novak', 'active', 'signup', -20, false, []],
  [37, 'Gus Novak', 'active', 'checkout', -18, true, ['newsletter']],
  [38, 'Hana Novak', 'active', 'signup', -16, false, []],
  [39, 'Ivan Novak', 'invited', 'api', -14, false, []],
  [40, 'Jade Novak', 'invited', 'api', -12, true, ['newsletter']],
]

export const studentId = (n: number) => `stu_demo_${String(n).padStart(2, '0')}`
export const emailOf = (name: string) => `${name.toLowerCase().replace(' ', '.')}@example.com`
