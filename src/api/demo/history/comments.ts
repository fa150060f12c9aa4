import type { CommentTable } from '../../../storage/tables/community.js'
import { studentId } from './people.js'

const MAYA = 'usr_demo_maya'
const SAM = 'usr_demo_sam'
const FOUNDATIONS = 'crs_demo_photography_foundations'
const LIGHTROOM = 'crs_demo_lightroom_editing_masterclass'
const foundations = (lesson: string) => `lsn_demo_photography_foundations_${lesson}`
const lightroom = (lesson: string) => `lsn_demo_lightroom_editing_masterclass_${lesson}`
const student = studentId

/** One comment of a thread: who wrote it, what, how long ago; `to` is the index answered. */
export interface DemoComment {
  readonly by: string
  readonly body: string
  readonly hoursAgo: number
  readonly to?: number
  readonly status?: CommentTable['status']
  readonly likes?: number
}

export interface DemoThread {
  readonly target: { type: 'lesson' | 'post'; id: string; course?: string }
  /** The first comment opens the thread; the others reply (to the first unless `to`). */
  readonly comments: readonly DemoComment[]
}

/**
 * Threads on lessons of the published courses and on posts: questions Sam (teaching
 * assistant) or Maya (owner) answered, questions only other students answered or nobody
 * did (what `unanswered=true` finds), one hidden and one pending comment.
 */
export const THREADS: readonly DemoThread[] = [
  {
    target: { type: 'lesson', id: foundations('1_1'), course: FOUNDATIONS },
    comments: [
      {
        by: student(3),
        body: '<p>Which shutter speed should I start with for handheld shots?</p>',
        hoursAgo: 12 * 24,
        likes: 3,
      },
      {
        by: SAM,
        body: '<p>A good rule: at least 1/focal length, so 1/50 s with a 50 mm lens.</p>',
        hoursAgo: 11 * 24,
        likes: 5,
      },
      { by: student(3), body: '<p>Thanks, that helps!</p>', hoursAgo: 11 * 24 - 3, to: 1 },
    ],
  },
  {
    target: { type: 'lesson', id: foundations('1_2'), course: FOUNDATIONS },
    comments: [
      {
        by: student(5),
        body: '<p>Is it worth shooting RAW on an entry-level camera?</p>',
        hoursAgo: 9 * 24,
      },
      {
        by: student(10),
        body: '<p>I think so, but I am not sure about the file sizes.</p>',
        hoursAgo: 8 * 24,
      },
    ],
  },
  {
    target: { type: 'lesson', id: foundations('2_1'), course: FOUNDATIONS },
    comments: [
      {
        by: student(12),
        body: '<p>How do I keep the horizon straight without a tripod?</p>',
        hoursAgo: 6 * 24,
        likes: 2,
      },
      {
        by: MAYA,
        body: '<p>Turn on the grid overlay in your viewfinder and level it with the top third.</p>',
        hoursAgo: 5 * 24,
        likes: 4,
      },
    ],
  },
  {
    target: { type: 'lesson', id: foundations('2_2'), course: FOUNDATIONS },
    comments: [
      {
        by: student(14),
        body: '<p>My photos come out too dark indoors. Should I raise the ISO or open the aperture first?</p>',
        hoursAgo: 3 * 24,
      },
    ],
  },
  {
    target: { type: 'lesson', id: foundations('3_1'), course: FOUNDATIONS },
    comments: [
      {
        by: student(16),
        body: '<p>Loved this lesson, the examples made it click.</p>',
        hoursAgo: 15 * 24,
        likes: 6,
      },
    ],
  },
  {
    target: { type: 'lesson', id: foundations('3_2'), course: FOUNDATIONS },
    comments: [
      {
        by: student(20),
        body: '<p>Can you recommend a lens for portraits under $300?</p>',
        hoursAgo: 2 * 24,
        status: 'pending',
      },
    ],
  },
  {
    target: { type: 'lesson', id: foundations('1_3'), course: FOUNDATIONS },
    comments: [
      {
        by: student(22),
        body: '<p>What is the difference between evaluative and spot metering?</p>',
        hoursAgo: 20 * 24,
        likes: 1,
      },
      {
        by: SAM,
        body: '<p>Evaluative reads the whole frame; spot reads a small circle in the centre.</p>',
        hoursAgo: 19 * 24,
      },
      {
        by: student(22),
        body: '<p>So spot metering is better for backlit portraits?</p>',
        hoursAgo: 18 * 24 + 5,
        to: 1,
      },
      {
        by: SAM,
        body: '<p>Exactly: meter on the face and let the background blow out.</p>',
        hoursAgo: 18 * 24,
        to: 2,
        likes: 2,
      },
    ],
  },
  {
    target: { type: 'lesson', id: foundations('4_1'), course: FOUNDATIONS },
    comments: [
      {
        by: student(7),
        body: '<p>Cheap presets at my site, click here!!!</p>',
        hoursAgo: 10 * 24,
        status: 'hidden',
      },
    ],
  },
  {
    target: { type: 'lesson', id: lightroom('1_1'), course: LIGHTROOM },
    comments: [
      {
        by: student(1),
        body: '<p>Should I import into one catalog or one per year?</p>',
        hoursAgo: 7 * 24,
      },
      {
        by: MAYA,
        body: '<p>One catalog for everything; use collections and keywords to organise.</p>',
        hoursAgo: 6 * 24,
        likes: 3,
      },
    ],
  },
  {
    target: { type: 'lesson', id: lightroom('2_1'), course: LIGHTROOM },
    comments: [
      {
        by: student(5),
        body: '<p>The dehaze slider makes my skies look grey. What am I doing wrong?</p>',
        hoursAgo: 24,
      },
    ],
  },
  {
    target: { type: 'lesson', id: lightroom('1_2'), course: LIGHTROOM },
    comments: [
      {
        by: student(9),
        body: '<p>Do smart previews work for exporting at full resolution?</p>',
        hoursAgo: 4 * 24,
      },
      {
        by: student(1),
        body: '<p>I had the same question, following.</p>',
        hoursAgo: 4 * 24 - 6,
      },
    ],
  },
  {
    target: { type: 'post', id: 'pst_demo_golden_hour_checklist' },
    comments: [
      {
        by: student(2),
        body: '<p>Printed the checklist and took it on my walk. Great tips!</p>',
        hoursAgo: 18 * 24,
        likes: 7,
      },
      {
        by: MAYA,
        body: '<p>So glad it helped. Share your favourite shot in the community!</p>',
        hoursAgo: 17 * 24,
        likes: 2,
      },
      {
        by: student(4),
        body: '<p>Same here, the white balance tip was new to me.</p>',
        hoursAgo: 16 * 24,
      },
    ],
  },
  {
    target: { type: 'post', id: 'pst_demo_golden_hour_checklist' },
    comments: [
      {
        by: student(6),
        body: '<p>Does the checklist work for blue hour too?</p>',
        hoursAgo: 5 * 24,
      },
    ],
  },
  {
    target: { type: 'post', id: 'pst_demo_welcome_to_brightframe' },
    comments: [
      { by: student(11), body: '<p>Excited to start learning here!</p>', hoursAgo: 55 * 24 },
      { by: SAM, body: '<p>Welcome aboard, Ada!</p>', hoursAgo: 54 * 24, likes: 1 },
    ],
  },
  {
    target: { type: 'post', id: 'pst_demo_welcome_to_brightframe' },
    comments: [
      {
        by: student(13),
        body: '<p>Will there be a course on film photography again?</p>',
        hoursAgo: 50 * 24,
      },
    ],
  },
  {
    target: { type: 'post', id: 'pst_demo_lightroom_presets_for_members' },
    comments: [
      {
        by: student(15),
        body: '<p>Do the presets work in Lightroom Mobile?</p>',
        hoursAgo: 8 * 24,
      },
      {
        by: MAYA,
        body: '<p>Yes: sync them through Lightroom CC and they show up on your phone.</p>',
        hoursAgo: 7 * 24,
      },
    ],
  },
]
