import type { Migration } from './index.js'

export const memberships: Migration = {
  id: '0007-memberships',
  async up() {},
}
