import type { Migration } from './index.js'

export const commerce: Migration = {
  id: '0005-commerce',
  async up() {},
}
