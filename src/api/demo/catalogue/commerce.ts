import { type CatalogueRecord, type JsonObject, usd, type When } from './types.js'

interface DemoCoupon {
  readonly slug: string
  readonly day: number
  readonly body: JsonObject
  readonly disabled?: number
}

const percent = (percent_off: number) => ({ type: 'percent', percent_off })

/** The coupons (DOMAIN.md §4.7), one in every status; days are from now. */
function coupons(when: When): DemoCoupon[] {
  return [
    {
      slug: 'welcome10',
      day: -120,
      body: {
        code: 'WELCOME10',
        name: 'Welcome: 10 % off a first order',
        discount: percent(10),
        max_redemptions_per_customer: 1,
      },
    },
    {
      slug: 'spring25',
      day: -46,
      body: {
        code: 'SPRING25',
        name: 'Spring sale: 25 % off Lightroom',
        discount: percent(25),
        applies_to: {
          type: 'products',
          products: [{ type: 'course', id: 'crs_demo_lightroom_editing_masterclass' }],
        },
        starts_at: when.iso(-45),
        expires_at: when.iso(14),
      },
    },
    {
      slug: 'friend20',
      day: -86,
      body: {
        code: 'FRIEND20',
        name: 'Refer a friend: $20 off $60 or more',
        discount: { type: 'fixed_amount', amount_off: usd(2000) },
        max_redemptions: 50,
        min_order_amount: usd(6000),
        starts_at: when.iso(-85),
      },
    },
    {
      slug: 'blackfriday',
      day: -95,
      body: {
        code: 'BLACKFRIDAY',
        name: 'Black Friday: 40 % off everything',
        discount: percent(40),
        starts_at: when.iso(-90),
        expires_at: when.iso(-80),
      },
    },
    {
      slug: 'vipfree',
      day: -40,
      body: {
        code: 'VIPFREE',
        name: 'A free course for one VIP',
        discount: percent(100),
        max_redemptions: 1,
        starts_at: when.iso(-40),
      },
    },
    {
      slug: 'summer30',
      day: -3,
      body: {
        code: 'SUMMER30',
        name: 'Summer: 30 % off (starts next month)',
        discount: percent(30),
        starts_at: when.iso(30),
        expires_at: when.iso(75),
      },
    },
    {
      slug: 'partner15',
      day: -71,
      body: {
        code: 'PARTNER15',
        name: 'Partner promotion (ended early, disabled)',
        discount: percent(15),
        starts_at: when.iso(-70),
      },
      disabled: -20,
    },
  ]
}

export function couponRecords(when: When): CatalogueRecord[] {
  return coupons(when).map((coupon) => ({
    collection: 'coupons',
    id: `cpn_demo_${coupon.slug}`,
    day: coupon.day,
    body: coupon.body,
    later: coupon.disabled === undefined ? [] : [{ day: coupon.disabled, action: 'disable' }],
  }))
}

/**
 * The digital products (DOMAIN.md §4.7): the Lightroom Preset Pack ($24, two files,
 * published, with a public cover), the Gear Checklist (a free lead magnet PDF, published)
 * and the Posing Guide (a draft). Their files are the demo's uploads (../files.ts).
 */
export function productRecords(coverUrl: string): CatalogueRecord[] {
  return [
    {
      collection: 'digital_products',
      id: 'dpr_demo_lightroom_preset_pack',
      day: -58,
      body: {
        title: 'Lightroom Preset Pack',
        slug: 'lightroom-preset-pack',
        description:
          '<p>Twelve presets from the <strong>Lightroom Editing Masterclass</strong>: golden hour, moody blues and clean portraits.</p>',
        cover_image_url: coverUrl,
        price: usd(2400),
        compare_at_price: usd(3900),
        files: [
          { file_id: 'fil_demo_lightroom_presets_zip' },
          { file_id: 'fil_demo_lightroom_presets_preview' },
        ],
        download_limit: 5,
        license_text: 'Personal and client work; do not resell or share the preset files.',
      },
      later: [{ day: -55, action: 'publish' }],
    },
    {
      collection: 'digital_products',
      id: 'dpr_demo_gear_checklist',
      day: -52,
      body: {
        title: 'Gear Checklist PDF',
        slug: 'gear-checklist',
        description:
          '<p>The one-page checklist we pack before every shoot. Free with the newsletter.</p>',
        price: usd(0),
        files: [{ file_id: 'fil_demo_gear_checklist_pdf' }],
      },
      later: [{ day: -50, action: 'publish' }],
    },
    {
      collection: 'digital_products',
      id: 'dpr_demo_posing_guide',
      day: -10,
      body: {
        title: 'Posing Guide eBook',
        slug: 'posing-guide',
        description: '<p>Natural poses for portraits, couples and small groups.</p>',
        price: usd(1900),
        files: [{ file_id: 'fil_demo_posing_guide_pdf' }],
        download_limit: 3,
        access_days: 365,
        license_text: 'Personal use only.',
      },
    },
  ]
}
