import type { JsonObject } from './types.js'

/** The school's settings: an update of the school (it exists from the first start). */
export const SCHOOL: JsonObject = {
  name: 'Brightframe Photography School',
  tagline: 'Learn to see light',
  description:
    '<p>Online photography courses for every level, from your first camera to your first exhibition.</p>',
  locale: 'en',
  timezone: 'America/New_York',
  currency: 'USD',
  country: 'US',
  contact_email: 'hello@brightframe.example',
  support_email: 'support@brightframe.example',
  social_links: {
    website: 'https://brightframe.example',
    instagram: 'https://instagram.com/brightframe.example',
  },
  seo_defaults: { title: 'Brightframe Photography School', description: 'Learn to see light' },
  legal: { terms_page_id: 'pag_demo_terms', company_name: 'Brightframe LLC' },
  signup: { open: true, require_email_verification: true },
  features: { comments: true, reviews: true, certificates: true },
}

/**
 * The school's look: an update of the appearance, with the logo (and favicon) at `logoUrl`:
 * the demo's logo in Portico's own file storage, served at the issuer.
 */
export const appearance = (logoUrl: string): JsonObject => ({
  logo_url: logoUrl,
  favicon_url: logoUrl,
  colors: {
    primary: '#1F6FEB',
    accent: '#F59E0B',
    background: '#FFFFFF',
    surface: '#F6F8FA',
    text: '#1F2328',
    link: '#0969DA',
  },
  typography: { heading_font: 'playfair', body_font: 'inter' },
  color_scheme: 'light',
  navigation: [
    { label: 'Courses', target: 'courses' },
    { label: 'Blog', target: 'blog' },
    { label: 'Events', target: 'events' },
    { label: 'Membership', target: 'plans' },
    { label: 'About', url: 'https://brightframe.example/about' },
  ],
  footer: { text: '© Brightframe Photography School' },
  course_player_theme: 'theater',
  homepage_layout: 'standard',
})
