import { SCHOOL_ID } from '../../people/first-start.js'
import { boolean, email, html, reference, text, url } from '../framework/fields.js'
import { currencyCode } from '../framework/money.js'
import { defineResource } from '../framework/resource.js'
import type { ResourceDb } from '../framework/store.js'
import { object } from '../framework/structures.js'
import { schoolWide } from '../people/owners.js'

const nullableUrl = () => url({ nullable: true })

/** The school's settings (DOMAIN.md §4.3.8): a singleton, public except legal and signup. */
export const school = defineResource({
  object: 'school',
  collection: 'school',
  table: 'school',
  idPrefix: 'school',
  singleton: SCHOOL_ID,
  summary: 'The school’s settings',
  scopes: { read: 'school:read', write: 'school:write' },
  writeRoles: ['owner', 'admin'],
  ownership: schoolWide('The school’s own settings, a singleton'),
  operations: ['get', 'update'],
  public: { get: {} },
  fields: {
    name: text({ public: true, min: 1, max: 120, default: 'Portico' }),
    tagline: text({ public: true, max: 200, nullable: true }),
    description: html({ public: true, nullable: true, max: 20_000 }),
    locale: text({
      public: true,
      nullable: true,
      max: 35,
      pattern: /^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/,
      patternHint: 'a BCP 47 language tag such as en or pt-BR',
    }),
    timezone: text({
      public: true,
      nullable: true,
      max: 64,
      pattern: /^[A-Za-z_]+(\/[A-Za-z0-9_+-]+)*$/,
      patternHint: 'an IANA time zone such as America/New_York',
    }),
    currency: currencyCode({ public: true, nullable: true }),
    country: text({
      public: true,
      nullable: true,
      max: 2,
      pattern: /^[A-Z]{2}$/,
      patternHint: 'an ISO 3166 alpha-2 code such as US',
    }),
    contact_email: email({ public: true, nullable: true }),
    support_email: email({ public: true, nullable: true }),
    social_links: object(
      {
        website: nullableUrl(),
        x: nullableUrl(),
        instagram: nullableUrl(),
        youtube: nullableUrl(),
        facebook: nullableUrl(),
        linkedin: nullableUrl(),
        tiktok: nullableUrl(),
      },
      { public: true, nullable: true },
    ),
    seo_defaults: object(
      {
        title: text({ max: 70, nullable: true }),
        description: text({ max: 160, nullable: true }),
        image_url: nullableUrl(),
      },
      { public: true, nullable: true },
    ),
    legal: object(
      {
        terms_page_id: reference('pag', { nullable: true }),
        privacy_page_id: reference('pag', { nullable: true }),
        company_name: text({ max: 200, nullable: true }),
        address: text({ max: 500, nullable: true }),
        tax_id: text({ max: 50, nullable: true }),
      },
      { nullable: true },
    ),
    signup: object(
      { open: boolean({ default: true }), require_email_verification: boolean({ default: true }) },
      { nullable: true },
    ),
    features: object(
      {
        comments: boolean({ default: true }),
        reviews: boolean({ default: true }),
        certificates: boolean({ default: true }),
      },
      { public: true, nullable: true },
    ),
    public_url: url({
      public: true,
      readOnly: true,
      description: 'Where the school is served: Portico’s issuer URL',
    }),
  },
  computed: (_row, _full, deps) => ({ public_url: deps.config.issuer }),
})

/** The school's currency (ISO 4217): every price, discount and order amount is in it. */
export async function schoolCurrency(db: ResourceDb): Promise<string> {
  const row = await db
    .selectFrom('school')
    .select('currency')
    .where('id', '=', SCHOOL_ID)
    .executeTakeFirst()
  return typeof row?.currency === 'string' && row.currency ? row.currency : 'USD'
}
