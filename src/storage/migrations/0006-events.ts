import type { Migration } from './index.js'

export const events: Migration = {
  id: '0006-events',
  async up() {},
}
