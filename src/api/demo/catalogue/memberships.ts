import { type CatalogueRecord, usd } from './types.js'

const STUDIO_INCLUDES = {
  course_ids: ['crs_demo_lightroom_editing_masterclass', 'crs_demo_night_sky_astrophotography'],
  post_access: true,
  event_access: true,
}
const monthly = (amount: number, trial_days: number) => ({
  amount: usd(amount),
  interval: 'month',
  interval_count: 1,
  trial_days,
})

/**
 * The membership plans (DOMAIN.md §4.7): Studio Pass (recurring; 45 days ago the monthly
 * price rose from $15 to $19 with a 7-day trial: a new price, the old one deactivated and
 * still paid by its subscribers), Founders Lifetime (archived, one holder) and Summer
 * Bootcamp (fixed term, a draft).
 */
export const PLAN_RECORDS: readonly CatalogueRecord[] = [
  {
    collection: 'membership_plans',
    id: 'mpl_demo_studio_pass',
    day: -150,
    body: {
      name: 'Studio Pass',
      slug: 'studio-pass',
      description:
        '<p>Everything you need to keep growing: the editing and astrophotography courses, members-only posts and live events.</p>',
      billing_type: 'recurring',
      position: 0,
      prices: [
        monthly(1500, 0),
        { amount: usd(19000), interval: 'year', interval_count: 1, trial_days: 0 },
      ],
      includes: { ...STUDIO_INCLUDES, digital_product_ids: ['dpr_demo_lightroom_preset_pack'] },
      features: [
        'Lightroom Editing Masterclass and Night Sky & Astrophotography',
        'The Lightroom Preset Pack',
        'Members-only posts and monthly live Q&A',
        'Cancel any time',
      ],
      faq: [
        {
          question: 'Can I try it first?',
          answer: 'Yes: the monthly plan starts with a 7-day free trial.',
        },
        {
          question: 'What happens when I cancel?',
          answer: 'You keep access until the end of the period you paid for.',
        },
      ],
    },
    ids: ['mpp_demo_studio_monthly_legacy', 'mpp_demo_studio_yearly'],
    later: [
      { day: -150, action: 'publish' },
      {
        day: -45,
        update: {
          prices: [
            { id: 'mpp_demo_studio_monthly_legacy', active: false },
            { id: 'mpp_demo_studio_yearly' },
            monthly(1900, 7),
          ],
        },
        ids: ['mpp_demo_studio_monthly'],
      },
    ],
  },
  {
    collection: 'membership_plans',
    id: 'mpl_demo_founders_lifetime',
    day: -200,
    body: {
      name: 'Founders Lifetime',
      slug: 'founders-lifetime',
      description: '<p>One payment, access forever. Offered to our first members only.</p>',
      visible: false,
      billing_type: 'lifetime',
      position: 1,
      prices: [{ amount: usd(49900) }],
      includes: { ...STUDIO_INCLUDES, digital_product_ids: [] },
      features: ['Everything in Studio Pass, forever'],
    },
    ids: ['mpp_demo_founders_lifetime'],
    later: [
      { day: -200, action: 'publish' },
      { day: -30, action: 'archive' },
    ],
  },
  {
    collection: 'membership_plans',
    id: 'mpl_demo_summer_bootcamp',
    day: -5,
    body: {
      name: 'Summer Bootcamp',
      slug: 'summer-bootcamp',
      description: '<p>Sixty days of guided practice with weekly assignments.</p>',
      billing_type: 'fixed_term',
      position: 2,
      prices: [{ amount: usd(5900), access_days: 60 }],
      includes: {
        course_ids: ['crs_demo_photography_foundations'],
        post_access: false,
        event_access: true,
      },
      features: ['60 days of access', 'Weekly assignments with feedback'],
    },
    ids: ['mpp_demo_summer_bootcamp'],
  },
]
