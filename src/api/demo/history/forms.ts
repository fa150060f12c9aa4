import type { FormTable } from '../../../storage/tables/community.js'

/**
 * The forms. The API has no operation that creates a form (forms are read-only there), so
 * they are loaded as rows, as a school's forms would be by its site builder.
 */
const NEWSLETTER_FIELDS = [
  { key: 'email', label: 'E-mail', type: 'email', required: true, options: [] },
  { key: 'name', label: 'First name', type: 'text', required: false, options: [] },
]

const PORTFOLIO_FIELDS = [
  { key: 'name', label: 'Your name', type: 'text', required: true, options: [] },
  { key: 'email', label: 'E-mail', type: 'email', required: true, options: [] },
  { key: 'portfolio_url', label: 'Portfolio URL', type: 'url', required: true, options: [] },
  {
    key: 'experience',
    label: 'Experience',
    type: 'select',
    required: true,
    options: ['beginner', 'intermediate', 'advanced', 'professional'],
  },
  {
    key: 'goals',
    label: 'What do you want from the review?',
    type: 'textarea',
    required: false,
    options: [],
  },
]

const SURVEY_FIELDS = [
  {
    key: 'topics',
    label: 'Which topics should we teach next?',
    type: 'multiselect',
    required: true,
    options: ['film', 'drone', 'video', 'studio lighting'],
  },
  {
    key: 'rating',
    label: 'How do you rate us (1-10)?',
    type: 'number',
    required: false,
    options: [],
  },
]

/** A form: its row, with the day it was made (days from now) instead of the times. */
export interface DemoForm
  extends Omit<FormTable, 'fields' | 'linked_to' | 'created_at' | 'updated_at'> {
  readonly fields: ReadonlyArray<{
    readonly key: string
    readonly label: string
    readonly type: string
    readonly required: boolean
    readonly options: readonly string[]
  }>
  readonly linked_to: Readonly<Record<string, string>> | null
  readonly day: number
}

export const FORMS: readonly DemoForm[] = [
  {
    id: 'frm_demo_newsletter',
    title: 'Newsletter signup',
    type: 'newsletter',
    status: 'active',
    fields: NEWSLETTER_FIELDS,
    linked_to: { digital_product_id: 'dpr_demo_gear_checklist' },
    success_message: 'Thanks! Check your inbox for the Gear Checklist.',
    day: -120,
  },
  {
    id: 'frm_demo_portfolio_review',
    title: 'Portfolio Review Application',
    type: 'application',
    status: 'active',
    fields: PORTFOLIO_FIELDS,
    linked_to: { page_id: 'pag_demo_about' },
    success_message: 'Application received. Maya reviews portfolios every Friday.',
    day: -70,
  },
  {
    id: 'frm_demo_topics_survey',
    title: 'Next course topics survey (closed)',
    type: 'survey',
    status: 'closed',
    fields: SURVEY_FIELDS,
    linked_to: null,
    success_message: 'Thanks for voting!',
    day: -200,
  },
]

/** The campaigns submissions came from (utm_source, utm_medium, utm_campaign). */
export const CAMPAIGNS = {
  gear_checklist: { source: 'instagram', medium: 'social', campaign: 'gear_checklist' },
  gear_checklist_video: { source: 'youtube', medium: 'video', campaign: 'gear_checklist' },
  spring_sale: { source: 'google', medium: 'cpc', campaign: 'spring_sale' },
  monthly_digest: { source: 'newsletter', medium: 'email', campaign: 'monthly_digest' },
} as const

/** A submission (fsub_demo_…) of a form on a day, matched to a student when it is one. */
export interface DemoSubmission {
  readonly id: string
  readonly day: number
  readonly email: string
  readonly name: string | null
  readonly student?: number
  readonly answers: Readonly<Record<string, string>>
  readonly from: string
  readonly utm: keyof typeof CAMPAIGNS | null
}

/** 18 newsletter signups over 60 days (every third a learner), 5 portfolio applications. */
// biome-ignore format: one submission a line
export const SUBMISSIONS: readonly DemoSubmission[] = [
  { id: 'newsletter_01', day: -60, email: 'ben.moreau@example.com', name: 'Ben', student: 2, answers: { email: 'ben.moreau@example.com', name: 'Ben' }, from: 'https://brightframe.example/', utm: 'gear_checklist' },
  { id: 'newsletter_02', day: -57 - 1 / 24, email: 'reader2@example.com', name: 'Sam', answers: { email: 'reader2@example.com', name: 'Sam' }, from: 'https://brightframe.example/blog/golden-hour-checklist', utm: 'spring_sale' },
  { id: 'newsletter_03', day: -54 - 2 / 24, email: 'reader3@example.com', name: 'Robin', answers: { email: 'reader3@example.com', name: 'Robin' }, from: 'https://brightframe.example/', utm: 'monthly_digest' },
  { id: 'newsletter_04', day: -51 - 3 / 24, email: 'elif.moreau@example.com', name: null, student: 5, answers: { email: 'elif.moreau@example.com' }, from: 'https://brightframe.example/blog/golden-hour-checklist', utm: 'gear_checklist_video' },
  { id: 'newsletter_05', day: -48 - 4 / 24, email: 'reader5@example.com', name: 'Alex', answers: { email: 'reader5@example.com', name: 'Alex' }, from: 'https://brightframe.example/', utm: 'gear_checklist' },
  { id: 'newsletter_06', day: -45, email: 'reader6@example.com', name: 'Sam', answers: { email: 'reader6@example.com', name: 'Sam' }, from: 'https://brightframe.example/blog/golden-hour-checklist', utm: 'spring_sale' },
  { id: 'newsletter_07', day: -42 - 1 / 24, email: 'hana.moreau@example.com', name: 'Hana', student: 8, answers: { email: 'hana.moreau@example.com', name: 'Hana' }, from: 'https://brightframe.example/', utm: 'monthly_digest' },
  { id: 'newsletter_08', day: -39 - 2 / 24, email: 'reader8@example.com', name: null, answers: { email: 'reader8@example.com' }, from: 'https://brightframe.example/blog/golden-hour-checklist', utm: 'gear_checklist_video' },
  { id: 'newsletter_09', day: -36 - 3 / 24, email: 'reader9@example.com', name: 'Alex', answers: { email: 'reader9@example.com', name: 'Alex' }, from: 'https://brightframe.example/', utm: 'gear_checklist' },
  { id: 'newsletter_10', day: -33 - 4 / 24, email: 'ada.silva@example.com', name: 'Ada', student: 11, answers: { email: 'ada.silva@example.com', name: 'Ada' }, from: 'https://brightframe.example/blog/golden-hour-checklist', utm: 'spring_sale' },
  { id: 'newsletter_11', day: -30, email: 'reader11@example.com', name: 'Robin', answers: { email: 'reader11@example.com', name: 'Robin' }, from: 'https://brightframe.example/', utm: 'monthly_digest' },
  { id: 'newsletter_12', day: -27 - 1 / 24, email: 'reader12@example.com', name: null, answers: { email: 'reader12@example.com' }, from: 'https://brightframe.example/blog/golden-hour-checklist', utm: 'gear_checklist_video' },
  { id: 'newsletter_13', day: -24 - 2 / 24, email: 'dev.silva@example.com', name: 'Dev', student: 14, answers: { email: 'dev.silva@example.com', name: 'Dev' }, from: 'https://brightframe.example/', utm: 'gear_checklist' },
  { id: 'newsletter_14', day: -21 - 3 / 24, email: 'reader14@example.com', name: 'Sam', answers: { email: 'reader14@example.com', name: 'Sam' }, from: 'https://brightframe.example/blog/golden-hour-checklist', utm: 'spring_sale' },
  { id: 'newsletter_15', day: -18 - 4 / 24, email: 'reader15@example.com', name: 'Robin', answers: { email: 'reader15@example.com', name: 'Robin' }, from: 'https://brightframe.example/', utm: 'monthly_digest' },
  { id: 'newsletter_16', day: -15, email: 'gus.silva@example.com', name: null, student: 17, answers: { email: 'gus.silva@example.com' }, from: 'https://brightframe.example/blog/golden-hour-checklist', utm: 'gear_checklist_video' },
  { id: 'newsletter_17', day: -12 - 1 / 24, email: 'reader17@example.com', name: 'Alex', answers: { email: 'reader17@example.com', name: 'Alex' }, from: 'https://brightframe.example/', utm: 'gear_checklist' },
  { id: 'newsletter_18', day: -9 - 2 / 24, email: 'reader18@example.com', name: 'Sam', answers: { email: 'reader18@example.com', name: 'Sam' }, from: 'https://brightframe.example/blog/golden-hour-checklist', utm: 'spring_sale' },
  { id: 'portfolio_review_1', day: -40, email: 'chloe.moreau@example.com', name: 'Chloe Moreau', student: 3, answers: { name: 'Chloe Moreau', email: 'chloe.moreau@example.com', portfolio_url: 'https://portfolio.example/chloe-moreau', experience: 'intermediate', goals: 'Get ready for my first exhibition.' }, from: 'https://brightframe.example/about', utm: null },
  { id: 'portfolio_review_2', day: -32, email: 'tom.becker@example.com', name: 'Tom Becker', answers: { name: 'Tom Becker', email: 'tom.becker@example.com', portfolio_url: 'https://portfolio.example/tom-becker', experience: 'beginner' }, from: 'https://brightframe.example/about', utm: null },
  { id: 'portfolio_review_3', day: -24, email: 'ben.silva@example.com', name: 'Ben Silva', student: 12, answers: { name: 'Ben Silva', email: 'ben.silva@example.com', portfolio_url: 'https://portfolio.example/ben-silva', experience: 'advanced', goals: 'Feedback on my street series.' }, from: 'https://brightframe.example/about', utm: null },
  { id: 'portfolio_review_4', day: -16, email: 'noor.haddad@example.com', name: 'Noor Haddad', answers: { name: 'Noor Haddad', email: 'noor.haddad@example.com', portfolio_url: 'https://portfolio.example/noor-haddad', experience: 'professional', goals: 'Refresh my wedding portfolio.' }, from: 'https://brightframe.example/about', utm: null },
  { id: 'portfolio_review_5', day: -8, email: 'tom.becker@example.com', name: 'Tom Becker', answers: { name: 'Tom Becker', email: 'tom.becker@example.com', portfolio_url: 'https://portfolio.example/tom-becker', experience: 'intermediate', goals: 'Choose my best 20 portraits.' }, from: 'https://brightframe.example/about', utm: null },
]
